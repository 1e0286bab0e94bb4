import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { presentForVerification, type KycBbsForm, type PresentedCredential } from '../../client/presentation.js';
import { RpcClient } from '../../client/rpc-client.js';
import { readKeyFile } from '../../config/keyfile.js';
import { LedgerError } from '../../errors.js';
import { parseCredential } from '../../protocol/credential-document.js';
import { parseDid } from '../../protocol/did.js';
import { KYC_BBS_FIELDS } from '../../protocol/kyc-bbs.js';
import type { RequiredClaim } from '../../protocol/verification.js';
import { EXIT_OK, printJson, requireFlag, rpcUrlFlag, stringFlag, UsageError, type CliIo, type Parsed } from '../io.js';
import { usage } from './recovery-tx.js';

/**
 * `ledger verify present`: the subject's answer to a request, from credential files. Kept apart
 * from verify.ts because it loads BBS and JSON-LD, which request and status never need.
 */

interface LoadedFile {
  file: string;
  type: string;
  form: { bbs: KycBbsForm } | { direct: ReturnType<typeof parseCredential> };
}

async function readJson(io: CliIo, file: string, flag: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(resolve(io.cwd, file), 'utf8');
  } catch (err) {
    throw new LedgerError('FILE_UNREADABLE', `--${flag} ${file}: ${(err as Error).message}`, 'not_found', { file });
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new UsageError(`--${flag} ${file} is not JSON`, 'verify');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new UsageError(`--${flag} ${file} must hold a JSON object`, 'verify');
  return v as Record<string, unknown>;
}

/** A BBS form, alone or as the `bbs` member of the KYC issuer's credential response. */
async function bbsFile(io: CliIo, file: string): Promise<LoadedFile> {
  const o = await readJson(io, file, 'bbs');
  const form = (typeof o.bbs === 'object' && o.bbs !== null ? o.bbs : o) as KycBbsForm;
  if (!Array.isArray(form.messages) || typeof form.publicKey !== 'string' || typeof form.signature !== 'string') {
    throw new UsageError(`--bbs ${file} is not a BBS form: {publicKey, header, messages, signature, messageCount}`, 'verify');
  }
  const typeMessage = form.messages[KYC_BBS_FIELDS.indexOf('type')];
  return { file, type: typeof typeMessage === 'string' ? typeMessage.replace(/^type=/, '') : '', form: { bbs: form } };
}

/** A W3C credential, alone or as the `credential` member of a credential response. */
async function credentialFile(io: CliIo, file: string): Promise<LoadedFile> {
  const o = await readJson(io, file, 'credential');
  const raw = typeof o.credential === 'object' && o.credential !== null ? o.credential : o;
  const credential = usage('verify', () => parseCredential(raw));
  return { file, type: credential.type[1], form: { direct: credential } };
}

/**
 * Each file gets the first claim of its type not yet given one, BBS forms first and only claims
 * that accept them: a BBS proof discloses less, and is the only way to show an age.
 */
export function matchClaims(claims: readonly RequiredClaim[], files: readonly LoadedFile[]): PresentedCredential[] {
  const taken = new Set<number>();
  const out: PresentedCredential[] = [];
  const ordered = [...files.filter((f) => 'bbs' in f.form), ...files.filter((f) => 'direct' in f.form)];
  for (const f of ordered) {
    const bbs = 'bbs' in f.form;
    const claim = claims.findIndex((c, i) => !taken.has(i) && c.type === f.type && (!bbs || c.acceptZKProof));
    if (claim < 0) {
      const asked = claims.map((c, i) => `${i}: ${c.type}${c.acceptZKProof ? '' : ' (no ZK proof)'}`).join(', ');
      throw new LedgerError('NO_MATCHING_CLAIM', `${f.file} (${f.type || 'unknown type'}${bbs ? ', BBS' : ''}) meets no open claim of the request; it asks ${asked}`, 'invalid', { file: f.file });
    }
    taken.add(claim);
    out.push({ claim, ...f.form } as PresentedCredential);
  }
  return out.sort((a, b) => a.claim - b.claim);
}

export async function present(p: Parsed, io: CliIo): Promise<number> {
  const requestId = requireFlag(p, 'request', 'verify');
  const bbsFiles = (p.values.bbs as string[] | undefined) ?? [];
  const credentialFiles = (p.values.credential as string[] | undefined) ?? [];
  if (bbsFiles.length + credentialFiles.length === 0) throw new UsageError('verify present needs at least one --bbs <file> or --credential <file>', 'verify');
  const didFlag = stringFlag(p, 'did');
  if (didFlag !== undefined) usage('verify', () => parseDid(didFlag));
  const key = await readKeyFile(resolve(io.cwd, requireFlag(p, 'key', 'verify')));
  const files = [...(await Promise.all(bbsFiles.map((f) => bbsFile(io, f)))), ...(await Promise.all(credentialFiles.map((f) => credentialFile(io, f))))];

  const client = new RpcClient(rpcUrlFlag(p, io));
  const view = await client.getVerificationRequest(requestId);
  if (!view) throw new LedgerError('UNKNOWN_VERIFICATION_REQUEST', `no verification request ${requestId} on this chain`, 'not_found', { requestId });
  if (view.status !== 'pending') throw new LedgerError('REQUEST_CLOSED', `verification request ${requestId} is ${view.status}; it takes no presentation`, 'conflict', { status: view.status });
  const holderDid = didFlag ?? key.did;
  const credentials = matchClaims(view.request.requiredClaims, files);
  const { chain_id: chainId } = await client.chainInfo();
  const presentation = await presentForVerification({ request: view.request, holderSeed: key.seed, holderDid, chainId, credentials });
  const sent = await client.submitPresentation(presentation);
  // what left the holder's hands, claim by claim
  const entries = presentation.credentials.map((e) => ({
    claim: e.claim,
    type: view.request.requiredClaims[e.claim]!.type,
    proofType: e.proofType,
    disclosed: e.proofType === 'bbs' ? e.disclosed.map((d) => d.message) : 'the whole credential',
  }));
  const unanswered = view.request.requiredClaims.map((_, i) => i).filter((i) => !credentials.some((c) => c.claim === i));
  printJson(io, { ...sent, entries, ...(unanswered.length > 0 ? { unanswered_claims: unanswered } : {}) });
  return EXIT_OK;
}
