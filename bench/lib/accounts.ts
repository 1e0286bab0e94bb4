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

/**
 * Follows committed blocks on one node by seq (polling its head every `pollMs`) and reports the
 * moment each transaction's block is first seen there.
 */
export class CommitWatcher {
  private seq = 0;
  private stopped = false;
  private loop: Promise<void> | undefined;
  blocks = 0;
  /** when each poll first saw the head move (blocks committed together count once) */
  readonly advancedAt: number[] = [];

  constructor(
    private readonly client: RpcClient,
    private readonly onCommitted: (txHash: string, atMs: number, blockSeq: number) => void,
    private readonly pollMs = 10,
  ) {}

  async start(): Promise<void> {
    this.seq = (await retryRead(() => this.client.canonHead()))?.seq ?? 0;
    this.loop = this.run();
  }

  get headSeq(): number {
    return this.seq;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        const head = (await this.client.canonHead())!;
        if (this.seq < head.seq) this.advancedAt.push(performance.now());
        while (this.seq < head.seq) {
          const block = await this.client.getBlockBySeq(this.seq + 1);
          const at = performance.now();
          this.seq++;
          this.blocks++;
          for (const h of block?.transactions ?? []) this.onCommitted(h, at, this.seq);
        }
      } catch {
        // a busy node may time out a poll; the next one catches up
      }
      await new Promise((r) => setTimeout(r, this.pollMs));
    }
  }
}
