import type { StoredCredential } from './jobs.js';
import type { Table } from '../../common/store/tables.js';

/**
 * An organization's issued credentials, newest first, as the dashboard lists them. The table is
 * keyed by credential id, so a page reads every credential and keeps the organization's: the
 * cost grows with all credentials issued, which a list index by organization would remove.
 */

export const CREDENTIAL_STATUSES = ['active', 'revoked'] as const;
export type CredentialStatus = (typeof CREDENTIAL_STATUSES)[number];

export interface CredentialFilter {
  /** the one credential (a session's): read by its key, not by scanning */
  credentialId?: string;
  mode?: 'sandbox' | 'live';
  status?: CredentialStatus;
  limit: number;
  offset: number;
}

/** What a credential's row reads of its session. */
export type SessionFacts = (sessionId: string) => Promise<{ level: number; sandbox: boolean } | undefined>;

export async function listCredentials(credentials: Table<StoredCredential>, organizationId: string, facts: SessionFacts, f: CredentialFilter): Promise<{ credentials: Array<Record<string, unknown>>; total: number }> {
  const rows: Array<Record<string, unknown> & { issuedAtMs: number }> = [];
  const one = f.credentialId === undefined ? undefined : await credentials.get(f.credentialId);
  const candidates = f.credentialId === undefined ? values(credentials) : one ? [one] : [];
  for await (const c of candidates) {
    if (c.organizationId !== organizationId) continue;
    if (f.status !== undefined && (c.revoked ? 'revoked' : 'active') !== f.status) continue;
    const s = await facts(c.sessionId);
    const mode = s?.sandbox ? 'sandbox' : 'live';
    if (f.mode !== undefined && mode !== f.mode) continue;
    rows.push({
      credentialId: c.credentialId,
      sessionId: c.sessionId,
      subjectDid: c.subjectDid,
      level: s?.level ?? null,
      mode,
      issuedAt: new Date(c.issuedAt).toISOString(),
      txHash: c.txHash,
      revoked: c.revoked !== undefined,
      revokedAt: c.revoked ? new Date(c.revoked.at).toISOString() : null,
      revocationReason: c.revoked?.reason ?? null,
      revocationTxHash: c.revoked?.txHash ?? null,
      issuedAtMs: c.issuedAt,
    });
  }
  rows.sort((a, b) => b.issuedAtMs - a.issuedAtMs || String(b.credentialId).localeCompare(String(a.credentialId)));
  return { credentials: rows.slice(f.offset, f.offset + f.limit).map(({ issuedAtMs: _, ...r }) => r), total: rows.length };
}

async function* values<T>(table: Table<T>): AsyncGenerator<T> {
  for await (const [, value] of table.entries()) yield value;
}
