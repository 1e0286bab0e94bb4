import { isLedgerError } from '../errors.js';
import type { Logger } from '../logging.js';
import { toHex, utf8 } from '../protocol/bytes.js';
import { canonicalJson } from '../protocol/verification.js';
import type { VerificationRecord } from '../protocol/verification-records.js';
import type { Answerer } from './answerer.js';
import { precheckPresentation, type PrecheckLookups } from './precheck.js';
import { RecentIds } from './recent-ids.js';
import { parsePresentation, presentationHash, type Presentation } from './presentation.js';

/**
 * Where presentations enter and leave a node: from the RPC (already prechecked) or from a peer,
 * to this validator's answerer and, unless a validator sent it, to every other peer once. The
 * validators are a full mesh, so one hop from any of them reaches a committee; a node behind them
 * relays to the validators it knows. A peer's presentation is prechecked
 * before it is relayed or checked, and a malformed one costs the peer.
 */

export interface PresentationNetwork {
  sendPresentation(bytes: Uint8Array, except?: Uint8Array): number;
  onPresentation(handler: (bytes: Uint8Array, from: Uint8Array) => void): void;
  penalize(address: Uint8Array, reason: string): void;
}

/** how many presentation hashes a node remembers having relayed */
const SEEN_LIMIT = 20_000;
/**
 * A presentation may arrive before its request is in a block here: a subject that presents as soon
 * as the dApp submitted, a peer a moment ahead. Its request is looked up again each time the view
 * moves (at least this often), for at most UNKNOWN_WAIT_MS when this node holds the request (about
 * three rounds under load), or a peer sent it; a request the RPC's node does not hold gets
 * UNKNOWN_GRACE_MS, the time for a block with it to arrive. At most MAX_WAITING wait at once.
 */
const UNKNOWN_POLL_MS = 100;
const UNKNOWN_WAIT_MS = 3000;
const UNKNOWN_GRACE_MS = 250;
const MAX_WAITING = 512;

export class PresentationIntake {
  private readonly seen = new RecentIds(SEEN_LIMIT);
  private waiting = 0;

  constructor(
    private readonly d: {
      network: string;
      /** the requests as this validator answers them (tip-view.ts), and the holders' DIDs */
      chain: PrecheckLookups;
      /** whether this node holds the request (in its mempool or a block): a presentation from the RPC waits longer for it */
      expected?: (requestId: string) => boolean;
      /** resolves when the requests' view moves (tip-view.ts) */
      moved?: () => Promise<void>;
      p2p?: PresentationNetwork;
      answerer?: Answerer;
      /** whether a peer's address is a validator of the current set */
      isValidator?: (address: Uint8Array) => Promise<boolean>;
      log: Logger;
      count?: (source: 'rpc' | 'peer' | 'duplicate' | 'refused') => void;
    },
  ) {
    d.p2p?.onPresentation((bytes, from) => void this.fromPeer(bytes, from));
  }

  /** this validator's presentation checks waiting or running (0 on a node that only relays) */
  backlog(): number {
    return this.d.answerer?.backlog() ?? 0;
  }

  /**
   * The RPC's precheck (precheck.ts), against the requests this validator answers from. A request
   * not in a block here yet is waited for: up to 3 s when this node holds it, 250 ms otherwise.
   */
  precheck(p: Presentation): Promise<VerificationRecord> {
    return this.precheckSoon(p, () => (this.d.expected?.(p.requestId) ? UNKNOWN_WAIT_MS : UNKNOWN_GRACE_MS));
  }

  /** A presentation the RPC took and prechecked: to the peers and to this validator's answerer. */
  submit(p: Presentation): { peers: number; answeringHere: boolean } {
    this.d.count?.('rpc');
    if (!this.firstSight(p)) return { peers: 0, answeringHere: this.d.answerer !== undefined };
    return this.spread(p);
  }

  private spread(p: Presentation, from?: Uint8Array): { peers: number; answeringHere: boolean } {
    const peers = this.d.p2p?.sendPresentation(utf8(canonicalJson(p)), from) ?? 0;
    void this.d.answerer?.onPresentation(p);
    return { peers, answeringHere: this.d.answerer !== undefined };
  }

  private firstSight(p: Presentation): boolean {
    return this.seen.add(toHex(presentationHash(p)));
  }

  /** The precheck, looked up again while the request is unknown here, for up to `patienceMs()` since the start (see UNKNOWN_WAIT_MS). */
  private async precheckSoon(p: Presentation, patienceMs: () => number): Promise<VerificationRecord> {
    const start = performance.now();
    let waiting = false;
    try {
      for (;;) {
        try {
          return await precheckPresentation(p, this.d.network, this.d.chain);
        } catch (err) {
          const left = start + patienceMs() - performance.now();
          if (!isLedgerError(err) || err.code !== 'UNKNOWN_VERIFICATION_REQUEST' || left <= 0) throw err;
          if (!waiting) {
            if (this.waiting >= MAX_WAITING) throw err;
            waiting = true;
            this.waiting++;
          }
          await this.nextLook(Math.min(left, UNKNOWN_POLL_MS));
        }
      }
    } finally {
      if (waiting) this.waiting--;
    }
  }

  /** Until the requests' view moves, or `ms`. */
  private async nextLook(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const elapsed = new Promise<void>((r) => (timer = setTimeout(r, ms)));
    await (this.d.moved ? Promise.race([elapsed, this.d.moved()]) : elapsed);
    clearTimeout(timer);
  }

  private async fromPeer(bytes: Uint8Array, from: Uint8Array): Promise<void> {
    let p: Presentation;
    try {
      p = parsePresentation(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)));
    } catch {
      this.d.p2p?.penalize(from, 'undecodable-presentation');
      return;
    }
    if (!this.firstSight(p)) return this.d.count?.('duplicate');
    try {
      await this.precheckSoon(p, () => UNKNOWN_WAIT_MS);
    } catch (err) {
      // a closed request or a lagging view is no fault of the peer; what its own precheck refuses is
      this.d.count?.('refused');
      if (isLedgerError(err) && err.kind === 'invalid') this.d.p2p?.penalize(from, `presentation: ${err.code}`);
      return;
    }
    this.d.count?.('peer');
    // the validators are a full mesh: what one of them sent, all of them got, so only what comes
    // from outside the set is passed on (a copy to every peer from every peer was most of the
    // presentations' traffic, and every copy costs a decryption and a lookup)
    if (await this.d.isValidator?.(from)) return void this.d.answerer?.onPresentation(p);
    this.spread(p, from);
  }
}
