import { resolve } from 'node:path';
import { waitForReceipt } from '../../client/builder.js';
import { RpcClient } from '../../client/rpc-client.js';
import type { VerificationRequestView, VerificationResponse } from '../../client/types.js';
import { buildVerificationRequest, verifyVerificationResponse, waitForVerificationResponse, type ClaimSpec, type ResponseCheck } from '../../client/verification.js';
import { readKeyFile } from '../../config/keyfile.js';
import { LedgerError } from '../../errors.js';
import { parseTokens } from '../../protocol/amount.js';
import { DEFAULT_VALID_FOR_BLOCKS, MAX_VALID_FOR_BLOCKS, MIN_VALID_FOR_BLOCKS } from '../../protocol/verification.js';
import { DEFAULT_RPC_URL, EXIT_FAILURE, EXIT_OK, intFlag, parseCommandArgs, printJson, requireFlag, rpcUrlFlag, stringFlag, UsageError, type CliIo, type Parsed } from '../io.js';
import { usage } from './recovery-tx.js';

/**
 * `ledger verify`: the three steps of a verification request (issue 27) from a shell. request and
 * status are the relying party's and need only the light client; present is the subject's and
 * loads BBS and JSON-LD (verify-present.ts) only when it runs.
 */

export const DEFAULT_PURPOSE = 'identity verification';
const DEFAULT_WAIT_MS = 120_000;

export const verifyHelp = `ledger verify: ask whether a subject holds claims, present, read the answer

Usage: ledger verify request --key <file> --subject <did> --claim <json> [options]
       ledger verify present --key <file> --request <id> (--bbs <file> | --credential <file>) ... [options]
       ledger verify status <request id> [--verify] [options]

verify request signs a verification request with the requester's key file (a key of its DID)
and submits it: the request is its own transaction, so the chain id and the account's pending
nonce are read from the node. --claim is one required claim as JSON: {"type", "constraints",
"acceptZKProof"}; the constraints are minimumAge, minimumLevel and jurisdiction, and
acceptZKProof defaults to true (a BBS proof may meet the claim). The fee (at least 0.001) is
held, paid to the committee that answers, and comes back if nobody answers within
--valid-for-blocks. Prints {requestId, txHash}; --wait also waits for the response.

verify present answers a request about the key file's DID: it reads the request from the node,
gives each credential file the first open claim of its type (a BBS form only one that accepts
ZK proofs), and submits the signed presentation. --bbs takes a KYC credential's BBS form (as
the KYC issuer hands it, alone or as the "bbs" member of its credential response): the proof
discloses only what the claim needs, the credential's id, type, issuer, subject and dates, plus
the level, the jurisdiction, and ageOver18/ageOver21 when true, else the birth date.
--credential takes a W3C credential, shown whole. Prints where the presentation went and what
each entry discloses.

verify status prints the request, where it stands, and the response once final or expired.
--verify checks the response offline against the current validator set (ledger_getEpoch) and
the request's own claims, and prints the verdict.

Exit codes: request --wait and status --verify exit 1 unless the response verifies the
subject (final, verified, and with --verify a valid response); 2 for bad usage.

Options:
  --key <file>             request: the requester's key file; present: the subject's (required)
  --rpc <url>              node JSON-RPC URL (default: $LEDGER_RPC_URL or ${DEFAULT_RPC_URL})
  --subject <did>          request: the subject's DID (required)
  --claim <json>           request: a required claim; repeatable, at least one
  --purpose <text>         request: why, shown to the subject (default: "${DEFAULT_PURPOSE}")
  --fee <tokens>           request: the committee's fee (default: 0.001, the minimum)
  --valid-for-blocks <n>   request: blocks it stays open, ${MIN_VALID_FOR_BLOCKS} to ${MAX_VALID_FOR_BLOCKS} (default: ${DEFAULT_VALID_FOR_BLOCKS})
  --request-id <id>        request: its id (default: a random UUID)
  --wait                   request: wait for the response and print it
  --timeout <ms>           request --wait: how long to wait (default: ${DEFAULT_WAIT_MS})
  --request <id>           present: the request to answer (required)
  --bbs <file>             present: a KYC credential's BBS form; repeatable
  --credential <file>      present: a W3C credential; repeatable
  --did <did>              present: the holder DID (default: the key file's own DID)
  --verify                 status, request --wait: check the response offline

Examples:
  ledger verify request --key dapp.json --subject did:ledger:testnet:3JQm... --purpose 'account opening' \\
    --claim '{"type":"KYCCredential","constraints":{"minimumLevel":2,"minimumAge":18}}' --wait
  ledger verify present --key alice.json --request 0c5e9a1e-3f7b-4d2a-9c61-7d1e2f3a4b5c --bbs kyc-bbs.json
  ledger verify status 0c5e9a1e-3f7b-4d2a-9c61-7d1e2f3a4b5c --verify`;

const OPTIONS = {
  key: { type: 'string' },
  rpc: { type: 'string' },
  subject: { type: 'string' },
  claim: { type: 'string', multiple: true },
  purpose: { type: 'string' },
  fee: { type: 'string' },
  'valid-for-blocks': { type: 'string' },
  'request-id': { type: 'string' },
  wait: { type: 'boolean' },
  timeout: { type: 'string' },
  request: { type: 'string' },
  bbs: { type: 'string', multiple: true },
  credential: { type: 'string', multiple: true },
  did: { type: 'string' },
  verify: { type: 'boolean' },
} as const;

/** Which flags each subcommand takes (--rpc all), so that a misplaced flag is named, not ignored. */
const FLAGS: Record<string, string[]> = {
  request: ['key', 'subject', 'claim', 'purpose', 'fee', 'valid-for-blocks', 'request-id', 'wait', 'timeout', 'verify'],
  present: ['key', 'request', 'bbs', 'credential', 'did'],
  status: ['verify'],
};

export function parseClaim(text: string): ClaimSpec {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new UsageError(`--claim takes JSON such as '{"type":"KYCCredential","constraints":{"minimumAge":18}}'; got ${JSON.stringify(text.slice(0, 80))}`, 'verify');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v) || typeof (v as ClaimSpec).type !== 'string') throw new UsageError('--claim must be a JSON object with a "type"', 'verify');
  const extra = Object.keys(v).find((k) => !['type', 'constraints', 'acceptZKProof'].includes(k));
  if (extra !== undefined) throw new UsageError(`--claim has an unknown member ${JSON.stringify(extra)}; it takes type, constraints and acceptZKProof`, 'verify');
  return v as ClaimSpec;
}

/** The offline check against the validator set of the epoch the response became final in. */
async function checkResponse(client: RpcClient, response: VerificationResponse, request: VerificationRequestView['request'], chainId: string): Promise<ResponseCheck> {
  const epoch = await client.getEpoch(response.finalHeight ?? undefined);
  return verifyVerificationResponse({ response, request, validators: epoch?.validators.map((v) => v.address) ?? [], chainId });
}

const verifiesSubject = (response: VerificationResponse, check?: ResponseCheck) => response.status === 'final' && response.verified && (check === undefined || (check.valid && check.verified));

async function request(p: Parsed, io: CliIo): Promise<number> {
  const claims = ((p.values.claim as string[] | undefined) ?? []).map(parseClaim);
  if (claims.length === 0) throw new UsageError('verify request needs at least one --claim <json>', 'verify');
  const subjectDid = requireFlag(p, 'subject', 'verify');
  const feeText = stringFlag(p, 'fee');
  const fee = feeText === undefined ? undefined : usage('verify', () => parseTokens(feeText));
  const validForBlocks = intFlag(p, 'valid-for-blocks', 'verify', MIN_VALID_FOR_BLOCKS, MAX_VALID_FOR_BLOCKS);
  const timeoutMs = intFlag(p, 'timeout', 'verify', 1, 86_400_000) ?? DEFAULT_WAIT_MS;
  if (p.values.verify === true && p.values.wait !== true) throw new UsageError('--verify checks the response, which only --wait waits for (or use verify status --verify)', 'verify');
  const key = await readKeyFile(resolve(io.cwd, requireFlag(p, 'key', 'verify')));
  const args = { requesterSeed: key.seed, requesterDid: key.did, subjectDid, claims, purpose: stringFlag(p, 'purpose') ?? DEFAULT_PURPOSE, ...(fee === undefined ? {} : { fee }), ...(validForBlocks === undefined ? {} : { validForBlocks }) };
  const requestId = stringFlag(p, 'request-id');
  // every member checked before the node is asked anything
  usage('verify', () => buildVerificationRequest({ ...args, chainId: 'check', nonce: 0 }));

  const client = new RpcClient(rpcUrlFlag(p, io));
  const { chain_id: chainId } = await client.chainInfo();
  const nonce = await client.getNonce(key.address, { pending: true });
  const signed = buildVerificationRequest({ ...args, chainId, nonce, ...(requestId === undefined ? {} : { requestId }) });
  const submitted = await client.submitVerificationRequest(signed);
  if (p.values.wait !== true) {
    printJson(io, submitted);
    return EXIT_OK;
  }
  const receipt = await waitForReceipt(client, submitted.txHash, { timeoutMs });
  if (receipt.status !== 'success') {
    printJson(io, { ...submitted, receipt });
    return EXIT_FAILURE;
  }
  const response = await waitForVerificationResponse(client, submitted.requestId, { timeoutMs });
  const check = p.values.verify === true ? await checkResponse(client, response, signed, chainId) : undefined;
  printJson(io, { ...submitted, response, ...(check ? { check } : {}) });
  return verifiesSubject(response, check) ? EXIT_OK : EXIT_FAILURE;
}

async function status(p: Parsed, io: CliIo): Promise<number> {
  const [id, ...more] = p.positionals;
  if (id === undefined || more.length > 0) throw new UsageError('verify status takes one request id', 'verify');
  const client = new RpcClient(rpcUrlFlag(p, io));
  const view = await client.getVerificationRequest(id);
  if (!view) throw new LedgerError('UNKNOWN_VERIFICATION_REQUEST', `no verification request ${id} on this chain`, 'not_found', { requestId: id });
  const response = await client.getVerificationResponse(id);
  if (p.values.verify !== true) {
    printJson(io, { status: view.status, request: view, response });
    return EXIT_OK;
  }
  if (!response) {
    printJson(io, { status: view.status, request: view, response, check: null });
    io.stderr(`ledger verify: request ${id} is ${view.status}: there is no response to check yet\n`);
    return EXIT_FAILURE;
  }
  const { chain_id: chainId } = await client.chainInfo();
  const check = await checkResponse(client, response, view.request, chainId);
  printJson(io, { status: view.status, request: view, response, check });
  return verifiesSubject(response, check) ? EXIT_OK : EXIT_FAILURE;
}

export async function runVerify(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || !Object.hasOwn(FLAGS, sub)) {
    throw new UsageError(sub === undefined ? 'verify needs a subcommand: request, present or status' : `unknown verify subcommand ${JSON.stringify(sub)}; use request, present or status`, 'verify');
  }
  const p = parseCommandArgs('verify', rest, OPTIONS, sub === 'status');
  for (const flag of Object.keys(OPTIONS)) {
    if (flag !== 'rpc' && p.values[flag] !== undefined && !FLAGS[sub]!.includes(flag)) throw new UsageError(`--${flag} does not apply to verify ${sub}`, 'verify');
  }
  if (sub === 'request') return request(p, io);
  if (sub === 'status') return status(p, io);
  const { present } = await import('./verify-present.js');
  return present(p, io);
}
