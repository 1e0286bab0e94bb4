import { invalid } from '../errors.js';
import { ByteReader, ByteWriter } from '../protocol/bytes.js';
import { MAX_TX_BYTES } from '../protocol/transaction.js';

/** A gossip frame of signed transactions: u16 count, then each as u16 length + its canonical encoding. */

export const MAX_TXS_PER_BATCH = 512;

export function encodeTxBatch(txs: Uint8Array[]): Uint8Array {
  const w = new ByteWriter().u16(txs.length);
  for (const tx of txs) w.u16(tx.length).bytes(tx);
  return w.finish();
}

export function decodeTxBatch(bytes: Uint8Array): Uint8Array[] {
  const r = new ByteReader(bytes);
  const count = r.u16();
  if (count === 0 || count > MAX_TXS_PER_BATCH) throw invalid('BAD_TX_BATCH', `a batch holds 1 to ${MAX_TXS_PER_BATCH} transactions, not ${count}`);
  const out: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const len = r.u16();
    if (len === 0 || len > MAX_TX_BYTES) throw invalid('BAD_TX_BATCH', `a transaction of ${len} bytes is outside 1 to ${MAX_TX_BYTES}`);
    out.push(r.bytes(len));
  }
  r.end();
  return out;
}
