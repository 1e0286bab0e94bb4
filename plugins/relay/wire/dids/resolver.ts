import type { DIDResolver } from 'didcomm-node';
import type { LedgerError } from '../../../../node/errors.js';
import { isLedgerError } from '../../../../node/errors.js';
import type { DidDocumentRpc } from '../../../../node/protocol/did-document.js';
import { parseDid } from '../../../../node/protocol/did.js';
import { didKeyDocument } from './did-key.js';
import { ledgerDidDocument } from './did-ledger.js';
import { MAX_LONG_PEER_DID, PeerDid4Store, peerDidDocument } from './did-peer.js';
import { deepFreeze, didError, type DidcommDidDoc, type DidErrorCode } from './document.js';

/**
 * The relay's DID resolver: did:key, did:peer (0, 2, 4) and did:ledger of our network, as
 * DIDComm documents (document.ts), with a cache.
 *
 * - did:ledger documents come from `ledger` (a read of committed chain state). They are kept
 *   `ttlMs` (60 s); "not found" and "deactivated" are kept `negativeTtlMs` (5 s) so a DID created
 *   or re-read shortly after is seen soon; a failed read (DID_RESOLUTION_FAILED) is not kept.
 *   Concurrent resolutions of one DID share one read. `fresh` reads again and replaces the
 *   entry; `invalidate` drops it (and the result of a read already under way).
 * - did:key and did:peer are functions of the DID string: they are kept in a second, smaller
 *   LRU without expiry, so that a flood of made-up static DIDs can evict only each other, never
 *   chain entries. Their failures are not kept (recomputing them is cheap).
 * - Both LRUs are bounded by entries and by an estimate of their bytes (a did:peer:2 of 4 KB
 *   makes a document of tens of KB).
 * - Documents are deep-frozen and shared: clone one before changing it.
 * - `resolve` never throws: it answers null, and the reason goes to `onFailure` (once per actual
 *   resolution, not on cache hits). `resolveStrict` throws the reason, a LedgerError with a
 *   DidErrorCode.
 * - A DID string longer than 4096 characters (did:peer:2, long-form did:peer:4) or 128 (any
 *   other) is refused before any parsing. A DID URL is resolved as its DID (fragment and query
 *   dropped).
 */

export interface DidResolverOptions {
  /** the on-chain DID document, or null when there is none */
  ledger: (did: string) => Promise<DidDocumentRpc | null>;
  /** our network: did:ledger:<network>:… of any other network does not resolve */
  network: string;
  ttlMs?: number;
  negativeTtlMs?: number;
  /** entries of the did:ledger cache; the static cache holds min(this, 1024) */
  maxEntries?: number;
  /** estimated bytes of the did:ledger cache; the static cache gets a quarter of it */
  maxBytes?: number;
  /** long-form did:peer:4 DIDs remembered for their short form */
  peer4Entries?: number;
  onFailure?: (did: string, reason: LedgerError) => void;
  /** clock, for tests */
  now?: () => number;
}

export interface ResolveOptions {
  /** skip the cache and read again (did:ledger: a fresh chain read) */
  fresh?: boolean;
}

export interface DidResolverStats {
  /** did:ledger entries (documents and negative results) */
  entries: number;
  staticEntries: number;
  bytes: number;
  hits: number;
  negativeHits: number;
  misses: number;
  evictions: number;
  /** calls of `ledger` */
  ledgerReads: number;
  /** failed resolutions by code (cache hits not counted) */
  failures: Partial<Record<DidErrorCode | string, number>>;
  /** long-form did:peer:4 DIDs remembered */
  peer4Known: number;
}

type Outcome = { doc: DidcommDidDoc; reason?: undefined } | { doc: null; reason: LedgerError };

interface Entry {
  outcome: Outcome;
  expiresAt: number;
  bytes: number;
}

const MAX_SHORT_DID = 128;
const DEFAULTS = { ttlMs: 60_000, negativeTtlMs: 5_000, maxEntries: 10_000, maxBytes: 32 * 1024 * 1024, peer4Entries: 1000 };

class Lru {
  private readonly map = new Map<string, Entry>();
  bytes = 0;
  evictions = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {}

  get(key: string, now: number): Entry | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= now) {
      this.delete(key);
      return undefined;
    }
    this.map.delete(key);
    this.map.set(key, e);
    return e;
  }

  set(key: string, entry: Entry): void {
    this.delete(key);
    if (entry.bytes > this.maxBytes || this.maxEntries <= 0) return;
    this.map.set(key, entry);
    this.bytes += entry.bytes;
    while (this.map.size > this.maxEntries || this.bytes > this.maxBytes) {
      this.delete(this.map.keys().next().value!);
      this.evictions++;
    }
  }

  delete(key: string): void {
    const e = this.map.get(key);
    if (e) {
      this.map.delete(key);
      this.bytes -= e.bytes;
    }
  }

  get size(): number {
    return this.map.size;
  }
}

function sizeOf(key: string, outcome: Outcome): number {
  return 64 + 2 * (key.length + (outcome.doc ? JSON.stringify(outcome.doc).length : 64));
}

/** The DID of a DID URL: `did:x:y#key-1` → `did:x:y`. */
function didPart(didUrl: string): string {
  const cut = didUrl.search(/[#?]/);
  return cut === -1 ? didUrl : didUrl.slice(0, cut);
}

function isLongPeer(did: string): boolean {
  return did.startsWith('did:peer:2') || (did.startsWith('did:peer:4') && did.indexOf(':', 'did:peer:4'.length) !== -1);
}

export class DidResolver {
  private readonly opts: Required<Omit<DidResolverOptions, 'onFailure' | 'now'>> & Pick<DidResolverOptions, 'onFailure'>;
  private readonly now: () => number;
  private readonly ledgerCache: Lru;
  private readonly staticCache: Lru;
  private readonly peer4: PeerDid4Store;
  /** did:ledger reads under way; the newest read of a DID is the one whose result is kept */
  private readonly inflight = new Map<string, { token: object; promise: Promise<Outcome> }>();
  private readonly counters = { hits: 0, negativeHits: 0, misses: 0, ledgerReads: 0 };
  private readonly failures: Record<string, number> = {};

  constructor(options: DidResolverOptions) {
    if (typeof options?.ledger !== 'function') throw new TypeError('DidResolver needs a ledger function');
    if (typeof options.network !== 'string' || options.network.length === 0) throw new TypeError('DidResolver needs the network name');
    this.opts = {
      ledger: options.ledger,
      network: options.network,
      ttlMs: options.ttlMs ?? DEFAULTS.ttlMs,
      negativeTtlMs: options.negativeTtlMs ?? DEFAULTS.negativeTtlMs,
      maxEntries: options.maxEntries ?? DEFAULTS.maxEntries,
      maxBytes: options.maxBytes ?? DEFAULTS.maxBytes,
      peer4Entries: options.peer4Entries ?? DEFAULTS.peer4Entries,
      onFailure: options.onFailure,
    };
    this.now = options.now ?? Date.now;
    this.ledgerCache = new Lru(this.opts.maxEntries, this.opts.maxBytes);
    this.staticCache = new Lru(Math.min(this.opts.maxEntries, 1024), Math.floor(this.opts.maxBytes / 4));
    this.peer4 = new PeerDid4Store(this.opts.peer4Entries);
  }

  /** The DID document, or null (the reason goes to onFailure). Never throws. */
  async resolve(did: string, options: ResolveOptions = {}): Promise<DidcommDidDoc | null> {
    try {
      return (await this.outcome(did, options)).doc;
    } catch (err) {
      // a bug, not a DID's fault; still never thrown at didcomm-node
      this.fail(typeof did === 'string' ? did : String(did), didError('DID_RESOLUTION_FAILED', `resolver error: ${err instanceof Error ? err.message : String(err)}`));
      return null;
    }
  }

  /** The DID document; throws the LedgerError that made it unresolvable. */
  async resolveStrict(did: string, options: ResolveOptions = {}): Promise<DidcommDidDoc> {
    const outcome = await this.outcome(did, options);
    if (outcome.doc === null) throw outcome.reason;
    return outcome.doc;
  }

  /** Resolves several DIDs at once; the map holds those that resolved (keyed as given). */
  async resolveMany(dids: Iterable<string>, options: ResolveOptions = {}): Promise<Record<string, DidcommDidDoc>> {
    const unique = [...new Set(dids)];
    const docs = await Promise.all(unique.map((d) => this.resolve(d, options)));
    const out: Record<string, DidcommDidDoc> = {};
    unique.forEach((d, i) => {
      if (docs[i]) out[d] = docs[i]!;
    });
    return out;
  }

  /** Drops what is cached for the DID (a did:ledger read under way is not kept either). */
  invalidate(did: string): void {
    const key = didPart(String(did));
    this.ledgerCache.delete(key);
    this.staticCache.delete(key);
    this.inflight.delete(key);
  }

  /** The object didcomm-node's pack and unpack take as `did_resolver`. */
  didcommResolver(): DIDResolver {
    return { resolve: (did: string) => this.resolve(did) };
  }

  stats(): DidResolverStats {
    return {
      entries: this.ledgerCache.size,
      staticEntries: this.staticCache.size,
      bytes: this.ledgerCache.bytes + this.staticCache.bytes,
      ...this.counters,
      evictions: this.ledgerCache.evictions + this.staticCache.evictions,
      failures: { ...this.failures },
      peer4Known: this.peer4.size,
    };
  }

  // ---- internals ----

  private fail(did: string, reason: LedgerError): Outcome {
    this.failures[reason.code] = (this.failures[reason.code] ?? 0) + 1;
    try {
      this.opts.onFailure?.(did, reason);
    } catch {
      // a listener's bug must not break resolution
    }
    return { doc: null, reason };
  }

  private async outcome(input: string, options: ResolveOptions): Promise<Outcome> {
    if (typeof input !== 'string' || !input.startsWith('did:')) {
      return this.fail(String(input).slice(0, MAX_SHORT_DID), didError('DID_INVALID', 'a DID is a string starting with did:'));
    }
    const cap = isLongPeer(input) ? MAX_LONG_PEER_DID : MAX_SHORT_DID;
    if (input.length > cap) {
      return this.fail(input.slice(0, MAX_SHORT_DID), didError('DID_TOO_LONG', `a DID of this kind is at most ${cap} characters`, { length: input.length, max: cap }));
    }
    const did = didPart(input);
    if (did.startsWith('did:ledger:')) return this.ledgerOutcome(did, options);
    if (did.startsWith('did:key:') || did.startsWith('did:peer:')) return this.staticOutcome(did, options);
    const method = did.split(':')[1] ?? '';
    return this.fail(did, didError('DID_UNSUPPORTED', `the DID method ${JSON.stringify(method.slice(0, 32))} is not supported (key, peer and ledger are)`));
  }

  private staticOutcome(did: string, options: ResolveOptions): Outcome {
    if (!options.fresh) {
      const hit = this.staticCache.get(did, this.now());
      if (hit) {
        this.counters.hits++;
        return hit.outcome;
      }
    }
    this.counters.misses++;
    let outcome: Outcome;
    try {
      const doc = did.startsWith('did:key:') ? didKeyDocument(did) : peerDidDocument(did, this.peer4);
      outcome = { doc: deepFreeze(doc) };
    } catch (err) {
      return this.fail(did, isLedgerError(err) ? err : didError('DID_INVALID', String(err)));
    }
    this.staticCache.set(did, { outcome, expiresAt: Infinity, bytes: sizeOf(did, outcome) });
    return outcome;
  }

  private ledgerOutcome(did: string, options: ResolveOptions): Promise<Outcome> | Outcome {
    let network: string;
    try {
      network = parseDid(did).network;
    } catch (err) {
      return this.fail(did, didError('DID_INVALID', isLedgerError(err) ? err.message : String(err)));
    }
    if (network !== this.opts.network) {
      return this.fail(did, didError('DID_WRONG_NETWORK', `${did} is on network ${network}; this node serves ${this.opts.network}`, { network, expected: this.opts.network }));
    }
    if (!options.fresh) {
      const hit = this.ledgerCache.get(did, this.now());
      if (hit) {
        if (hit.outcome.doc) this.counters.hits++;
        else this.counters.negativeHits++;
        return hit.outcome;
      }
      const running = this.inflight.get(did);
      if (running) return running.promise;
    }
    this.counters.misses++;
    const token = {};
    const promise = this.readLedger(did)
      .catch((err: unknown) => this.fail(did, didError('DID_RESOLUTION_FAILED', `resolver error: ${err instanceof Error ? err.message : String(err)}`)))
      .then((outcome) => {
        if (this.inflight.get(did)?.token === token) {
          this.inflight.delete(did);
          this.remember(did, outcome);
        }
        return outcome;
      });
    this.inflight.set(did, { token, promise });
    return promise;
  }

  /** Documents for ttlMs; "not found" and "deactivated" for negativeTtlMs; anything else not at all. */
  private remember(did: string, outcome: Outcome): void {
    const code = outcome.reason?.code;
    const ttl = outcome.doc ? this.opts.ttlMs : code === 'DID_NOT_FOUND' || code === 'DID_DEACTIVATED' ? this.opts.negativeTtlMs : 0;
    if (ttl > 0) this.ledgerCache.set(did, { outcome, expiresAt: this.now() + ttl, bytes: sizeOf(did, outcome) });
    else this.ledgerCache.delete(did);
  }

  private async readLedger(did: string): Promise<Outcome> {
    this.counters.ledgerReads++;
    let rpc: DidDocumentRpc | null;
    try {
      rpc = await this.opts.ledger(did);
    } catch (err) {
      return this.fail(did, didError('DID_RESOLUTION_FAILED', `reading ${did} from the chain failed: ${err instanceof Error ? err.message : String(err)}`));
    }
    if (rpc === null || rpc === undefined) return this.fail(did, didError('DID_NOT_FOUND', `${did} is not on chain`, { did }));
    if (rpc.id !== did) return this.fail(did, didError('DID_RESOLUTION_FAILED', `the chain answered ${String(rpc.id)} for ${did}`));
    try {
      return { doc: deepFreeze(ledgerDidDocument(rpc)) };
    } catch (err) {
      return this.fail(did, isLedgerError(err) ? err : didError('DID_INVALID', String(err)));
    }
  }
}
