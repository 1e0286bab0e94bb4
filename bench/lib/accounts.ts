import { buildTransfer, RpcClient, RpcTransportError, signAndEncode, waitForReceipt } from '../../node/client/index.js';
import { generateAccountKey, type AccountKey } from '../../node/config/keyfile.js';
import { UNIT } from '../../node/protocol/amount.js';

export interface SignedTx {
  json: string;
  hash: string;
}

/** Makes `count` fresh accounts and funds each with `tokens` from `dev`, waiting for the last transfer. */
export async function fundSenders(client: RpcClient, chainId: string, dev: AccountKey, count: number, tokens = 10n): Promise<AccountKey[]> {
  const senders = Array.from({ length: count }, () => generateAccountKey('testnet'));
  let nonce = await client.getNonce(dev.address);
  let last = '';
  for (const s of senders) {
    const signed = signAndEncode(chainId, buildTransfer({ senderPubkey: dev.publicKey, nonce: nonce++, to: s.address, amount: tokens * UNIT }), dev.seed);
    last = await client.sendTransaction(signed.json);
  }
  await waitForReceipt(client, last, { timeoutMs: 120_000 });
  return senders;
}

/**
 * `total` transfers of 1 unit back to `to`, signed ahead of time so that signing never counts
 * against the node: round-robin over the senders, each sender's nonces in order from 0.
 */
export function presignTransfers(chainId: string, senders: AccountKey[], to: string, total: number): Array<SignedTx & { sender: number }> {
  const out: Array<SignedTx & { sender: number }> = [];
  for (let nonce = 0; out.length < total; nonce++) {
    for (let i = 0; i < senders.length && out.length < total; i++) {
      const s = senders[i]!;
      out.push({ ...signAndEncode(chainId, buildTransfer({ senderPubkey: s.publicKey, nonce: BigInt(nonce), to, amount: 1n }), s.seed), sender: i });
    }
  }
  return out;
}

/**
 * presignTransfers in slices, yielding to the event loop between them: a long synchronous run
 * would keep the HTTP client from noticing that the node closed its idle keep-alive sockets, and
 * the next request would go out on a dead one ("other side closed").
 */
export async function presignTransfersAsync(chainId: string, senders: AccountKey[], to: string, total: number, slice = 2_000): Promise<Array<SignedTx & { sender: number }>> {
  const out: Array<SignedTx & { sender: number }> = [];
  for (let nonce = 0; out.length < total; nonce++) {
    for (let i = 0; i < senders.length && out.length < total; i++) {
      const s = senders[i]!;
      out.push({ ...signAndEncode(chainId, buildTransfer({ senderPubkey: s.publicKey, nonce: BigInt(nonce), to, amount: 1n }), s.seed), sender: i });
      if (out.length % slice === 0) await new Promise((r) => setImmediate(r));
    }
  }
  return out;
}

/** Retries a read (an idempotent call) when the transport fails, up to `attempts` times. */
export async function retryRead<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts || !(err instanceof RpcTransportError)) throw err;
      await new Promise((r) => setTimeout(r, 50 * i));
    }
  }
}
