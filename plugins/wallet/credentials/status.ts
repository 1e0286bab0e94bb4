import { parseCredentialId, parseDid, RevocationList } from '../../../node/client/index.js';
import { REVOCATION_LIST_ENTRIES } from '../../../node/protocol/revocation-list.js';
import type { Logger } from '../../../node/logging.js';
import type { ChainView } from '../../../node/plugins/chain-view.js';
import type { CachedCredential, ChainCredentialStatus, KycStatus } from './store.js';
import { boundedFetch, quote, STATUS_TIMEOUT_MS, urlRefusal } from './upstream.js';

/**
 * A cached credential's status, refreshed on every GET /v1/credentials:
 * - against the chain (authoritative): `ctx.chain.verifyCredential`, the ledger_credentialVerify
 *   answer. The chain calls a credential valid while it is not revoked; the wallet also shows it
 *   not valid when its issuer DID was deactivated or its `expirationDate` passed, and says which.
 * - against the verification service (best effort, 3 s): the issuer's revocation list that the
 *   credential's `credentialStatus` names (the KYC plugin serves it at /v1/revocation-lists/<n>),
 *   or, for a credential without one, whether `<kycUrl>/v1/health` answers. A failure is recorded
 *   as `{reachable: false, error}` and never fails the list.
 */

const MAX_STATUS_BYTES = 64 * 1024;

export interface StatusDeps {
  chain: ChainView;
  kycUrl(): string;
  now(): number;
  log?: Pick<Logger, 'debug'>;
  timeoutMs?: number;
}

interface ListAnswer {
  ok: true;
  list: RevocationList;
  issuer: string | undefined;
}

export class CredentialStatusChecker {
  private readonly fetch: typeof fetch;

  constructor(private readonly deps: StatusDeps) {
    this.fetch = boundedFetch({ kycUrl: deps.kycUrl, timeoutMs: deps.timeoutMs ?? STATUS_TIMEOUT_MS, maxBytes: MAX_STATUS_BYTES });
  }

  /** The credential's standing on chain now. */
  async chainStatus(credentialId: string, issuerDid: string, expirationDate: string | null): Promise<ChainCredentialStatus> {
    const now = this.deps.now();
    const expired = expirationDate !== null && Number.isFinite(Date.parse(expirationDate)) && Date.parse(expirationDate) <= now;
    const base = { checkedAt: new Date(now).toISOString(), source: 'chain' as const, expired };
    let id: Uint8Array;
    try {
      id = parseCredentialId(credentialId);
    } catch {
      return { ...base, valid: false, revoked: false, registered: false, issuerActive: await this.issuerActive(issuerDid) };
    }
    const verified = await this.deps.chain.verifyCredential(id);
    if (!verified) return { ...base, valid: false, revoked: false, registered: false, issuerActive: await this.issuerActive(issuerDid) };
    const issuerActive = verified.credential['issuer_active'] === true;
    return { ...base, valid: verified.valid && issuerActive && !expired, revoked: verified.revoked, registered: true, issuerActive };
  }

  /** Each record with both statuses refreshed (the caller stores them). Never throws for an upstream. */
  async refresh(records: readonly CachedCredential[]): Promise<CachedCredential[]> {
    const lists = new Map<string, Promise<ListAnswer | { ok: false; error: string }>>();
    let health: Promise<KycStatus> | undefined;
    return Promise.all(
      records.map(async (r) => {
        const status = await this.chainStatus(r.id, r.issuer, r.expirationDate);
        const pointer = statusPointer(r.credential);
        let kycStatus: KycStatus;
        if (pointer) {
          let answer = lists.get(pointer.url);
          if (!answer) lists.set(pointer.url, (answer = this.list(pointer.url)));
          kycStatus = this.fromList(await answer, pointer, r.issuer);
        } else {
          kycStatus = await (health ??= this.health());
        }
        return { ...r, status, kycStatus };
      }),
    );
  }

  private async issuerActive(issuerDid: string): Promise<boolean> {
    try {
      return (await this.deps.chain.resolveDid(parseDid(issuerDid).identifier))?.active === true;
    } catch {
      return false;
    }
  }

  private fromList(answer: ListAnswer | { ok: false; error: string }, pointer: { url: string; index: number }, issuer: string): KycStatus {
    const base = { via: 'status-list' as const, url: pointer.url, checkedAt: new Date(this.deps.now()).toISOString() };
    if (!answer.ok) return { ...base, reachable: false, error: answer.error };
    if (answer.issuer !== undefined && answer.issuer !== issuer) return { ...base, reachable: true, error: `the list is issued by ${quote(answer.issuer)}, not by the credential's issuer` };
    if (pointer.index >= REVOCATION_LIST_ENTRIES) return { ...base, reachable: true, error: `index ${pointer.index} is outside the list` };
    return { ...base, reachable: true, revoked: answer.list.isRevoked(pointer.index) };
  }

  private async list(url: string): Promise<ListAnswer | { ok: false; error: string }> {
    const refusal = urlRefusal(url, this.deps.kycUrl());
    if (refusal) return { ok: false, error: refusal };
    try {
      const res = await this.fetch(url, { headers: { accept: 'application/json' } });
      if (!res.ok) return { ok: false, error: `the list answered HTTP ${res.status}` };
      const body = (await res.json()) as { issuer?: unknown; credentialSubject?: { encodedList?: unknown } };
      const encoded = body?.credentialSubject?.encodedList;
      if (typeof encoded !== 'string') return { ok: false, error: 'the answer is not a RevocationList2020 credential (no credentialSubject.encodedList)' };
      const issuer = typeof body.issuer === 'string' ? body.issuer : typeof (body.issuer as { id?: unknown })?.id === 'string' ? (body.issuer as { id: string }).id : undefined;
      return { ok: true, list: RevocationList.fromEncodedList(encoded), issuer };
    } catch (err) {
      this.deps.log?.debug({ err: (err as Error).message, url }, 'a credential status list could not be read');
      return { ok: false, error: quote((err as Error).message ?? String(err)) };
    }
  }

  private async health(): Promise<KycStatus> {
    const url = `${this.deps.kycUrl().replace(/\/+$/, '')}/v1/health`;
    const base = { via: 'health' as const, url, checkedAt: new Date(this.deps.now()).toISOString() };
    try {
      const res = await this.fetch(url, { headers: { accept: 'application/json' } });
      return res.ok ? { ...base, reachable: true } : { ...base, reachable: false, error: `the verification service answered HTTP ${res.status}` };
    } catch (err) {
      return { ...base, reachable: false, error: quote((err as Error).message ?? String(err)) };
    }
  }
}

/** The credential's RevocationList2020 entry, when it names one. */
export function statusPointer(credential: unknown): { url: string; index: number } | undefined {
  const status = (credential as { credentialStatus?: { revocationListCredential?: unknown; revocationListIndex?: unknown } } | null)?.credentialStatus;
  const url = status?.revocationListCredential;
  const index = status?.revocationListIndex;
  if (typeof url !== 'string' || url.length > 2048) return undefined;
  const n = typeof index === 'string' && /^\d{1,9}$/.test(index) ? Number(index) : typeof index === 'number' && Number.isSafeInteger(index) && index >= 0 ? index : undefined;
  return n === undefined ? undefined : { url, index: n };
}
