/**
 * The wire format between the signature checker and its worker threads: one buffer for a whole
 * batch, so handing it over is one transfer rather than a structured clone of three arrays per
 * signature. Per item: 32-byte public key, 64-byte signature, u32 message length, message.
 */

export interface SignatureItem {
  publicKey: Uint8Array;
  message: Uint8Array;
  signature: Uint8Array;
}

const PUBLIC_KEY = 32;
const SIGNATURE = 64;
const ITEM_HEADER = PUBLIC_KEY + SIGNATURE + 4;

/** Items of the wrong key or signature size are the caller's to refuse; they never reach here. */
export function packSignatures(items: readonly SignatureItem[]): ArrayBuffer {
  let size = 4;
  for (const it of items) size += ITEM_HEADER + it.message.length;
  const buf = new ArrayBuffer(size);
  const bytes = new Uint8Array(buf);
  const view = new DataView(buf);
  view.setUint32(0, items.length);
  let off = 4;
  for (const it of items) {
    bytes.set(it.publicKey, off);
    bytes.set(it.signature, off + PUBLIC_KEY);
    view.setUint32(off + PUBLIC_KEY + SIGNATURE, it.message.length);
    bytes.set(it.message, off + ITEM_HEADER);
    off += ITEM_HEADER + it.message.length;
  }
  return buf;
}

export function unpackSignatures(buf: ArrayBuffer): SignatureItem[] {
  const bytes = new Uint8Array(buf);
  const view = new DataView(buf);
  const count = view.getUint32(0);
  const items: SignatureItem[] = [];
  let off = 4;
  for (let i = 0; i < count; i++) {
    const len = view.getUint32(off + PUBLIC_KEY + SIGNATURE);
    items.push({
      publicKey: bytes.subarray(off, off + PUBLIC_KEY),
      signature: bytes.subarray(off + PUBLIC_KEY, off + PUBLIC_KEY + SIGNATURE),
      message: bytes.subarray(off + ITEM_HEADER, off + ITEM_HEADER + len),
    });
    off += ITEM_HEADER + len;
  }
  if (off !== bytes.length) throw new RangeError(`a signature batch of ${bytes.length} bytes holds ${off}`);
  return items;
}

export function isWellFormed(it: SignatureItem): boolean {
  return it.publicKey.length === PUBLIC_KEY && it.signature.length === SIGNATURE;
}
