import { invalid, LedgerError } from '../errors.js';
import { authenticationKeys } from '../protocol/did-document.js';
import { parseDid } from '../protocol/did.js';
import type { DidRecord } from '../protocol/records.js';
import type { VerificationRecord } from '../protocol/verification-records.js';
import { shapeRefusal } from './check.js';
import { signedByOneOf, type Presentation } from './presentation.js';

/**
 * What any node checks before it passes a presentation on (the RPC that takes it, every peer that
 * forwards it): the request is open, the presentation's shape (check.ts shapeRefusal: its holder
 * is the subject, no over-disclosure), the holder an active DID that signed it. One Ed25519 check
 * and two lookups, so a forged, misdirected or over-disclosing presentation never reaches a
 * committee's proof work and is never relayed.
 */

export interface PrecheckLookups {
  verification(requestId: string): Promise<VerificationRecord | undefined>;
  did(identifier: Uint8Array): Promise<DidRecord | undefined>;
}

export async function precheckPresentation(p: Presentation, network: string, chain: PrecheckLookups): Promise<VerificationRecord> {
  const v = await chain.verification(p.requestId);
  if (!v) throw new LedgerError('UNKNOWN_VERIFICATION_REQUEST', `no verification request ${p.requestId} on this chain`, 'not_found', { requestId: p.requestId });
  if (v.status !== 'pending') throw new LedgerError('REQUEST_CLOSED', `verification request ${p.requestId} is ${v.status}; it takes no presentation`, 'conflict', { status: v.status });
  const shape = shapeRefusal(v.request, p);
  if (shape) throw invalid(shape.code, shape.message);
  const parsed = parseDid(p.holder);
  const holder = parsed.network === network ? await chain.did(parsed.identifier) : undefined;
  if (!holder?.active) throw new LedgerError('HOLDER_NOT_ACTIVE', `the holder ${p.holder} is not an active DID of this chain`, 'conflict', { did: p.holder });
  if (!signedByOneOf(p, authenticationKeys(holder))) {
    throw invalid('BAD_PRESENTATION_SIGNATURE', `the presentation signature does not verify under an authentication key of ${p.holder}`);
  }
  return v;
}
