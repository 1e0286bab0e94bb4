import { buildTransfer, RpcError, signAndEncode, type RpcClient } from '../../../node/client/index.js';
import type { AccountKey } from '../../../node/config/keyfile.js';

/** A node the load may send to: `generation` changes at each restart (its mempool starts empty). */
export interface LoadTarget {
  id: number;
  generation: number;
  client: RpcClient;
}

export interface LoadOptions {
  chainId: string;
  senders: AccountKey[];
  /** where every transfer (1 unit) goes */
  to: string;
  /** transactions a second, open loop */
  rate: number;
  /** the nodes up now, sent to round-robin */
  targets(): LoadTarget[];
  /** a node to read receipts from (up and at the head), or undefined while there is none */
  reader(): RpcClient | undefined;
  /** a sender with this many unconfirmed transactions is skipped (default 16, under the mempool's nonce window) */
  maxPendingPerSender?: number;
  /** a transaction whose node died or restarted is sent again after this long (default 500 ms) */
  orphanResendMs?: number;
  /** any unconfirmed transaction is sent again after this long (default 15 s): gossip may have lost it */
  resendMs?: number;
  /** receipt polling interval (default 250 ms) */
  pollMs?: number;
}

/** Where a transaction landed, as the first receipt read for it said. */
export interface Landed {
  seq: number;
  blockHash: string;
  status: string;
  sender: number;
  nonce: bigint;
}

export interface LoadStats {
  signed: number;
  /** sends (first ones and again) a node accepted or already knew */
  accepted: number;
  /** sends that went to another node after one refused or was unreachable */
  failedOver: number;
  /** transactions sent again because their node died or they stayed unconfirmed */
  resent: number;
  /** schedule slots with every sender at its pending cap (the chain was not keeping up) */
  skipped: number;
  /** refusals and transport failures, by code */
  refusals: Record<string, number>;
}

interface Pending {
  hash: string;
  json: string;
  sender: number;
  nonce: bigint;
  sentAt: number;
  /** the node (and its generation) that accepted it last; undefined until one did */
  holder: { id: number; generation: number } | undefined;
  sending: boolean;
}

/** A node answering these already holds or has committed this very transaction. */
const KNOWN = new Set(['ALREADY_KNOWN', 'NONCE_TAKEN', 'NONCE_TOO_LOW']);

/**
 * Transfers at a fixed rate from S funded senders, round-robin over the nodes that are up. Each
 * sender signs its nonces in order and never skips one: a send a node refuses (or cannot take,
 * being down) goes to the next node with the same nonce, and a transaction whose node died is
 * sent again elsewhere. Every transaction that got a receipt is kept in `landed`.
 */
export class LoadGenerator {
  readonly landed = new Map<string, Landed>();
  readonly stats: LoadStats = { signed: 0, accepted: 0, failedOver: 0, resent: 0, skipped: 0, refusals: {} };
  private readonly nonces: bigint[];
  private readonly pending: Array<Map<string, Pending>>;
  private readonly cap: number;
  private nextSender = 0;
  private nextTarget = 0;
  private paused = true;
  private stopped = false;
  private base = 0;
  private issued = 0;
  private loops: Array<Promise<void>> = [];

  constructor(private readonly o: LoadOptions) {
    this.nonces = o.senders.map(() => 0n);
    this.pending = o.senders.map(() => new Map());
    this.cap = o.maxPendingPerSender ?? 16;
  }

  start(): void {
    this.resume();
    this.loops = [this.schedule(), this.poll()];
  }

  /** Stops signing new transactions; those in flight are still resent and confirmed. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.base = performance.now();
    this.issued = 0;
    this.paused = false;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  get pendingCount(): number {
    return this.pending.reduce((a, m) => a + m.size, 0);
  }

  /** The next nonce of sender i: every lower one was signed and is landed or pending. */
  nonceOf(i: number): bigint {
    return this.nonces[i]!;
  }

  /** Waits until nothing is pending; resolves with how many still are after `timeoutMs`. */
  async drain(timeoutMs: number): Promise<number> {
    const end = performance.now() + timeoutMs;
    while (this.pendingCount > 0 && performance.now() < end) await sleep(50);
    return this.pendingCount;
  }

  private async schedule(): Promise<void> {
    while (!this.stopped) {
      if (!this.paused) {
        const due = Math.floor(((performance.now() - this.base) * this.o.rate) / 1000);
        for (; this.issued < due; this.issued++) this.issue();
      }
      await sleep(5);
    }
  }

  private issue(): void {
    const n = this.o.senders.length;
    for (let tries = 0; tries < n; tries++) {
      const i = this.nextSender++ % n;
      if (this.pending[i]!.size >= this.cap) continue;
      const s = this.o.senders[i]!;
      const nonce = this.nonces[i]!;
      this.nonces[i] = nonce + 1n;
      const signed = signAndEncode(this.o.chainId, buildTransfer({ senderPubkey: s.publicKey, nonce, to: this.o.to, amount: 1n }), s.seed);
      const p: Pending = { hash: signed.hash, json: signed.json, sender: i, nonce, sentAt: 0, holder: undefined, sending: false };
      this.pending[i]!.set(p.hash, p);
      this.stats.signed++;
      void this.send(p);
      return;
    }
    this.stats.skipped++;
  }

  /** Tries the nodes up now in turn, from the next in the rotation, until one takes `p`. */
  private async send(p: Pending): Promise<void> {
    p.sending = true;
    const targets = this.o.targets();
    const first = this.nextTarget++;
    try {
      for (let k = 0; k < targets.length; k++) {
        const t = targets[(first + k) % targets.length]!;
        if (k > 0) this.stats.failedOver++;
        try {
          await t.client.sendTransaction(p.json);
        } catch (err) {
          const code = err instanceof RpcError ? ((err.data as { code?: string } | undefined)?.code ?? `rpc ${err.code}`) : 'unreachable';
          if (!KNOWN.has(code)) {
            this.stats.refusals[code] = (this.stats.refusals[code] ?? 0) + 1;
            continue;
          }
        }
        this.stats.accepted++;
        p.holder = { id: t.id, generation: t.generation };
        return;
      }
      p.holder = undefined;
    } finally {
      p.sentAt = performance.now();
      p.sending = false;
    }
  }

  private async poll(): Promise<void> {
    const every = this.o.pollMs ?? 250;
    while (!this.stopped) {
      await this.confirm().catch(() => undefined); // the reader died meanwhile: next round
      this.resendStale();
      await sleep(every);
    }
  }

  private async confirm(): Promise<void> {
    const reader = this.o.reader();
    if (!reader) return;
    const all = this.pending.flatMap((m) => [...m.values()]).filter((p) => p.sentAt > 0);
    for (let i = 0; i < all.length; i += 100) {
      const chunk = all.slice(i, i + 100);
      const answers = await reader.batch(chunk.map((p) => ({ method: 'ledger_getReceipt', params: [p.hash] })));
      answers.forEach((a, k) => {
        const r = a.ok ? (a.result as { block_seq: number; block_hash: string; status: string } | null) : null;
        if (!r) return;
        const p = chunk[k]!;
        this.landed.set(p.hash, { seq: r.block_seq, blockHash: r.block_hash, status: r.status, sender: p.sender, nonce: p.nonce });
        this.pending[p.sender]!.delete(p.hash);
      });
    }
  }

  private resendStale(): void {
    const now = performance.now();
    const live = new Set(this.o.targets().map((t) => `${t.id}/${t.generation}`));
    const orphanMs = this.o.orphanResendMs ?? 500;
    const staleMs = this.o.resendMs ?? 15_000;
    for (const m of this.pending) {
      for (const p of m.values()) {
        if (p.sending || p.sentAt === 0) continue;
        const orphan = p.holder === undefined || !live.has(`${p.holder.id}/${p.holder.generation}`);
        if (now - p.sentAt >= (orphan ? orphanMs : staleMs)) {
          this.stats.resent++;
          void this.send(p);
        }
      }
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
