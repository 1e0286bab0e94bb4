import { isLedgerError } from '../errors.js';
import type { Logger } from '../logging.js';
import { toHex, utf8 } from '../protocol/bytes.js';
import { canonicalJson } from '../protocol/verification.js';
import type { Answerer } from './answerer.js';
import { precheckPresentation, type PrecheckLookups } from './precheck.js';
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
/** a request this node has not committed yet is looked up again, this often, this many times */
const UNKNOWN_RETRIES = 4;
const UNKNOWN_RETRY_MS = 250;

export class PresentationIntake {
  private readonly seen = new Set<string>();

  constructor(
    private readonly d: {
      network: string;
      chain: PrecheckLookups;
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
    const key = toHex(presentationHash(p));
    if (this.seen.has(key)) return false;
    if (this.seen.size >= SEEN_LIMIT) this.seen.delete(this.seen.values().next().value!);
    this.seen.add(key);
    return true;
  }

  /** A peer that committed the request's block a moment before this node: wait a little for it. */
  private async precheckSoon(p: Presentation): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await precheckPresentation(p, this.d.network, this.d.chain);
        return;
      } catch (err) {
        if (!isLedgerError(err) || err.code !== 'UNKNOWN_VERIFICATION_REQUEST' || attempt >= UNKNOWN_RETRIES) throw err;
        await new Promise((r) => setTimeout(r, UNKNOWN_RETRY_MS));
      }
    }
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
      await this.precheckSoon(p);
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
