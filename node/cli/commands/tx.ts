import { resolve } from 'node:path';
import { buildDidCreate, buildDidDeactivate, buildStake, buildTransfer, buildUnstake, buildValidatorRegister, signAndEncode, waitForReceipt } from '../../client/builder.js';
import { RpcClient } from '../../client/rpc-client.js';
import { isValidatorKey, readKeyFile, type KeyFile } from '../../config/keyfile.js';
import { amountFromJson, parseTokens } from '../../protocol/amount.js';
import { CREDENTIAL_TYPES } from '../../protocol/credential-types.js';
import type { ServiceEndpoint } from '../../protocol/payloads.js';
import type { UnsignedTransaction } from '../../protocol/transaction.js';
import { DEFAULT_RPC_URL, intFlag, parseCommandArgs, printJson, requireFlag, rpcUrlFlag, stringFlag, UsageError, type CliIo, type Parsed } from '../io.js';
import { CREDENTIAL_TX_FLAGS, CREDENTIAL_TX_OPTIONS, credentialRequestTx, credentialRevokeTx, validatorQualifyTx } from './credential-tx.js';
import { didRecoverTx, RECOVERY_TX_FLAGS, RECOVERY_TX_OPTIONS, setRecoveryPolicyTx } from './recovery-tx.js';
import { KINDS, TX_KINDS, type Kind } from './tx-kinds.js';

export const txHelp = `ledger tx: sign a transaction locally and send it to a node

Usage: ledger tx <${KINDS.join('|')}> --key <file> [options]

Reads the chain id (ledger_chainInfo) and the sender's next nonce (ledger_getNonce
"pending": after the sender's transactions still pending on that node, so several can be
sent back to back) from the node, signs with the key file's Ed25519 key, sends it with
ledger_sendTransaction and prints {tx_hash} (and the receipt with --wait).

validator-register registers the BLS vote key of a validator key file (keys/validator.json),
with its proof of possession; with a Stake of at least 10,000 the sender joins the validator
set at the next epoch boundary.

validator-qualify names the sender's registered KYC credential (level 2 or more): on a chain
whose genesis has the KYC rule, a validator joins the set only once qualified.

credential-request asks the validators to attest a credential the sender's DID issues: give
the credential's id, its SHA-256 hash and the revocation position it holds (the issuer's next
one: ledger rpc ledger_nextRevocationIndex <issuer did>); the issuance fee of --type is
added to the transaction fee. credential-revoke revokes a registered credential for good.

set-recovery-policy names the guardians who may move the DID to a new key (signed by the
DID's key); did-recover sends their signatures (from "ledger recovery sign"), and any
funded key may send it. After a recovery, give --did explicitly: a key file's own DID is
that of its key.

Options:
  --key <file>             the sender's key file (required)
  --rpc <url>              node JSON-RPC URL (default: $LEDGER_RPC_URL or ${DEFAULT_RPC_URL})
  --to <address>           transfer: recipient base58 address
  --amount <tokens>        transfer, stake, unstake: amount in tokens, e.g. 1.5
  --amount-units <int>     the same in smallest units (1 token = 100000000 units)
  --service <id,type,url>  did-create: a service endpoint; repeatable
  --did <did>              did-deactivate, set-recovery-policy: the DID (default: the key's
                           own DID); did-recover: the DID to recover (required)
  --guardian <did>         set-recovery-policy: a guardian's DID; repeatable, at most 10
  --threshold <n>          set-recovery-policy: how many guardians must sign
  --delay-blocks <n>       set-recovery-policy: blocks between a recovery and its effect (default: 0)
  --clear                  set-recovery-policy: remove the policy instead
  --new-public-key <hex>   did-recover: the Ed25519 key that is to control the DID
  --signature <did>=<hex>  did-recover: a guardian's signature; repeatable
  --credential <id>        credential-request, credential-revoke, validator-qualify: the
                           credential id (urn:ledger:credential:<uuid> or the UUID)
  --subject <did>          credential-request: the subject's DID
  --type <type>            credential-request: ${CREDENTIAL_TYPES.join(', ')}
  --kyc-level <1-3>        credential-request: a KYCCredential's level
  --hash <hex>             credential-request: SHA-256 of the credential (32 bytes)
  --evidence <hex>         credential-request: digest of the evidence (32 bytes)
  --status-list <n>        credential-request: the revocation list (default: 0)
  --status-index <n>       credential-request: the position in it (required)
  --nonce <int>            use this nonce instead of asking the node
  --print                  sign and print {tx_hash, json} without sending: the JSON text a wallet
                           backend takes (POST /v1/users/register's signedDidCreate, the relays)
  --wait                   wait for the receipt and print it
  --timeout <ms>           how long --wait waits (default: 30000)

Examples:
  ledger tx transfer --key data/keys/dev.json --to 3JQmMsGbVaLaZTtzMmPd41x8mrVb --amount 1.5 --wait
  ledger tx stake --key data/keys/validator.json --amount 10000
  ledger tx did-create --key alice.json --service '#pod,SolidPod,https://pod.example/alice'
  ledger tx did-deactivate --key alice.json
  ledger tx validator-register --key data/keys/validator.json --wait
  ledger tx credential-request --key issuer.json --credential <uuid> --subject <did> --type KYCCredential --kyc-level 2 --hash <hex> --evidence <hex> --status-index 0 --wait
  ledger tx credential-revoke --key issuer.json --credential <uuid> --wait
  ledger tx set-recovery-policy --key alice.json --guardian <did> --guardian <did> --threshold 2 --delay-blocks 100
  ledger tx did-recover --key relayer.json --did <did> --new-public-key <hex> --signature <did>=<hex> --signature <did>=<hex>`;

const COMMON_FLAGS = ['key', 'rpc', 'nonce', 'print', 'wait', 'timeout'];

/** The Options lines of txHelp by flag (a line and its continuation lines), so the per-kind help says the same. */
function optionLines(): Map<string, string[]> {
  const lines = txHelp.slice(txHelp.indexOf('\nOptions:\n') + 10, txHelp.indexOf('\n\nExamples:')).split('\n');
  const byFlag = new Map<string, string[]>();
  let current: string[] = [];
  for (const line of lines) {
    const flag = /^ {2}--([a-z-]+)/.exec(line)?.[1];
    if (flag !== undefined) byFlag.set(flag, (current = [line]));
    else current.push(line);
  }
  return byFlag;
}

/** `ledger tx <kind> --help`: that kind's flags and example; undefined when argv names no kind. */
export function txKindHelp(argv: string[]): string | undefined {
  const kind = argv[0];
  if (kind === undefined || !Object.hasOwn(TX_KINDS, kind)) return undefined;
  const info = TX_KINDS[kind as Kind];
  const options = optionLines();
  const flags = [...KIND_FLAGS[kind as Kind], ...COMMON_FLAGS].flatMap((f) => options.get(f) ?? []);
  return `ledger tx ${kind}: ${info.summary} (a ${info.payload} transaction)

Usage: ledger tx ${kind} --key <file> [options]

Options:
${flags.join('\n')}

Example:
  ${info.example}

Run "ledger tx --help" for how transactions are signed and sent.`;
}

function amountOf(p: Parsed): bigint {
  const tokens = stringFlag(p, 'amount');
  const units = stringFlag(p, 'amount-units');
  if ((tokens === undefined) === (units === undefined)) throw new UsageError('give exactly one of --amount <tokens> or --amount-units <integer>', 'tx');
  try {
    return tokens !== undefined ? parseTokens(tokens) : amountFromJson(units, '--amount-units');
  } catch (err) {
    throw new UsageError((err as Error).message, 'tx');
  }
}

/** "id,type,endpoint": the endpoint is everything after the second comma (URLs may hold commas). */
export function parseService(text: string): ServiceEndpoint {
  const first = text.indexOf(',');
  const second = first < 0 ? -1 : text.indexOf(',', first + 1);
  if (second < 0) throw new UsageError(`--service takes id,type,endpoint; got ${JSON.stringify(text)}`, 'tx');
  return { id: text.slice(0, first).trim(), type: text.slice(first + 1, second).trim(), serviceEndpoint: text.slice(second + 1).trim() };
}

function unsignedFor(kind: Kind, p: Parsed, key: KeyFile, nonce: bigint, chainId: string): UnsignedTransaction {
  const base = { senderPubkey: key.publicKey, nonce };
  switch (kind) {
    case 'transfer':
      return buildTransfer({ ...base, to: requireFlag(p, 'to', 'tx'), amount: amountOf(p) });
    case 'stake':
      return buildStake({ ...base, amount: amountOf(p) });
    case 'unstake':
      return buildUnstake({ ...base, amount: amountOf(p) });
    case 'did-create': {
      const raw = p.values.service;
      const list = Array.isArray(raw) ? raw : [];
      return buildDidCreate({ ...base, service: list.map(parseService) });
    }
    case 'did-deactivate':
      return buildDidDeactivate({ ...base, did: stringFlag(p, 'did') ?? key.did });
    case 'validator-register':
      if (!isValidatorKey(key)) throw new UsageError('tx validator-register needs a validator key file (with a BLS key), such as keys/validator.json', 'tx');
      return buildValidatorRegister({ ...base, chainId, blsSecretKey: key.blsSecretKey });
    case 'validator-qualify':
      return validatorQualifyTx(p, base);
    case 'credential-request':
      return credentialRequestTx(p, base, key.did);
    case 'credential-revoke':
      return credentialRevokeTx(p, base);
    case 'set-recovery-policy':
      return setRecoveryPolicyTx(p, base, key.did);
    case 'did-recover':
      return didRecoverTx(p, base);
  }
}

/** Flags that only make sense for some kinds are refused elsewhere, so a typo never goes unnoticed. */
const KIND_FLAGS: Record<Kind, string[]> = {
  transfer: ['to', 'amount', 'amount-units'],
  stake: ['amount', 'amount-units'],
  unstake: ['amount', 'amount-units'],
  'did-create': ['service'],
  'did-deactivate': ['did'],
  'validator-register': [],
  ...RECOVERY_TX_FLAGS,
  ...CREDENTIAL_TX_FLAGS,
};

export async function runTx(argv: string[], io: CliIo): Promise<number> {
  const [kindArg, ...rest] = argv;
  if (kindArg === undefined || !(KINDS as readonly string[]).includes(kindArg)) {
    throw new UsageError(kindArg === undefined ? `tx needs a kind: ${KINDS.join(', ')}` : `unknown transaction kind ${JSON.stringify(kindArg)}; kinds: ${KINDS.join(', ')}`, 'tx');
  }
  const kind = kindArg as Kind;
  const p = parseCommandArgs('tx', rest, {
    key: { type: 'string' },
    rpc: { type: 'string' },
    to: { type: 'string' },
    amount: { type: 'string' },
    'amount-units': { type: 'string' },
    service: { type: 'string', multiple: true },
    did: { type: 'string' },
    nonce: { type: 'string' },
    wait: { type: 'boolean' },
    print: { type: 'boolean' },
    timeout: { type: 'string' },
    ...RECOVERY_TX_OPTIONS,
    ...CREDENTIAL_TX_OPTIONS,
  });
  for (const flag of Object.values(KIND_FLAGS).flat()) {
    if (p.values[flag] !== undefined && !KIND_FLAGS[kind].includes(flag)) throw new UsageError(`--${flag} does not apply to tx ${kind}`, 'tx');
  }
  const key = await readKeyFile(resolve(io.cwd, requireFlag(p, 'key', 'tx')));
  const timeoutMs = intFlag(p, 'timeout', 'tx', 1, 3_600_000) ?? 30_000;
  const nonceFlag = stringFlag(p, 'nonce');
  if (nonceFlag !== undefined && !/^\d{1,20}$/.test(nonceFlag)) throw new UsageError('--nonce must be a non-negative integer', 'tx');
  if (p.values.print === true && p.values.wait === true) throw new UsageError('--print sends nothing, so there is no receipt to --wait for', 'tx');
  // Validate the flags before touching the network.
  unsignedFor(kind, p, key, 0n, '');

  const client = new RpcClient(rpcUrlFlag(p, io));
  const { chain_id: chainId } = await client.chainInfo();
  const nonce = nonceFlag !== undefined ? BigInt(nonceFlag) : await client.getNonce(key.address, { pending: true });
  const signed = signAndEncode(chainId, unsignedFor(kind, p, key, nonce, chainId), key.seed);
  if (p.values.print === true) {
    printJson(io, { tx_hash: signed.hash, json: signed.json });
    return 0;
  }
  const txHash = await client.sendTransaction(signed.json);
  if (p.values.wait !== true) {
    printJson(io, { tx_hash: txHash });
    return 0;
  }
  const receipt = await waitForReceipt(client, txHash, { timeoutMs });
  printJson(io, { tx_hash: txHash, receipt });
  return receipt.status === 'success' ? 0 : 1;
}
