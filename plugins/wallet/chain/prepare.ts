import { addressBytesFromPublicKey, isAddress, parseAddress } from '../../../node/protocol/address.js';
import { fromHex, toHex, U128_MAX } from '../../../node/protocol/bytes.js';
import { feeFor } from '../../../node/protocol/fees.js';
import { payloadToJson, type Payload } from '../../../node/protocol/payloads.js';
import { signingBytes, type UnsignedTransaction } from '../../../node/protocol/transaction.js';
import { HttpProblem, validation } from '../../common/http/problems.js';
import { oneOf, onlyFields } from '../../common/http/validate.js';
import { refuseSecrets } from '../http/secrets.js';
import type { WalletBase } from '../services.js';

/**
 * `POST /v1/transactions/prepare` (docs/wallet.md, "Preparing a transaction"): the unsigned
 * ChainTransaction for the caller's key and live committed nonce, the fee, and the exact bytes to
 * sign. The client signs them on the device and sends the signed object to the relay routes; the
 * backend holds no key that could sign it.
 *
 * `amount` is in smallest units: 1 LGR = 100000000. It is a JSON integer (a number up to 2^53 - 1,
 * or a bare larger integer literal) or a string of decimal digits; fractions, zero and negatives
 * are refused.
 */

export const PREPARE_KINDS = ['send', 'stake', 'unstake'] as const;
export type PrepareKind = (typeof PREPARE_KINDS)[number];

const FIELDS = ['chain', 'kind', 'assetId', 'amount', 'toAddress'];
const OTHER_CHAINS = ['eth', 'btc'];

export interface PreparedTransaction {
  chain: 'ledger';
  kind: PrepareKind;
  assetId: 'lgr';
  /** smallest units, decimal */
  amount: string;
  /** the ChainTransaction without its signature, in the protocol's JSON form */
  unsigned: { sender_pubkey: number[]; nonce: number | bigint; payload: Record<string, unknown> };
  /** the caller's next nonce in committed state; transactions still pending in the mempool are not counted */
  nonce: number | bigint;
  /** smallest units, decimal: taken on top of the amount */
  fee: string;
  /** hex of the signing bytes (docs/protocol.md, "Signing bytes"): sign exactly these with Ed25519 */
  signingBytes: string;
  chainId: string;
  /** the committed balance, smallest units */
  balance: string;
  /** the balance covers amount + fee (send, stake) or the fee (unstake); informational, never refused here */
  sufficientBalance: boolean;
  /** unstake only: the committed stake, and whether it covers the amount */
  staked?: string;
  sufficientStake?: boolean;
}

/** A positive integer of smallest units from the body (see the module comment). */
export function parseAmount(value: unknown): bigint {
  let n: bigint | undefined;
  if (typeof value === 'bigint') n = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value);
  else if (typeof value === 'string' && /^\d{1,39}$/.test(value)) n = BigInt(value);
  if (value === undefined || value === null) throw validation('amount is required: an integer in smallest units (1 LGR = 100000000)', 'amount');
  if (n === undefined) {
    throw validation('amount must be a whole number of smallest units (1 LGR = 100000000): a JSON integer or a string of digits, not a fraction', 'amount');
  }
  if (n <= 0n) throw validation('amount must be greater than zero', 'amount');
  if (n > U128_MAX) throw validation('amount is larger than the protocol allows (2^128 - 1)', 'amount');
  return n;
}

export class TransactionPreparer {
  constructor(private readonly base: Pick<WalletBase, 'chain' | 'chainId'>) {}

  async prepare(caller: { publicKey: string }, body: Record<string, unknown>): Promise<PreparedTransaction> {
    refuseSecrets(body);
    onlyFields(body, FIELDS);
    if (typeof body.chain === 'string' && OTHER_CHAINS.includes(body.chain)) {
      throw validation(`the backend prepares ledger transactions only; a ${body.chain} transaction is built and broadcast by the wallet itself`, 'chain');
    }
    oneOf(body.chain, 'chain', ['ledger'] as const);
    const kind = oneOf(body.kind, 'kind', PREPARE_KINDS);
    oneOf(body.assetId, 'assetId', ['lgr'] as const);
    const amount = parseAmount(body.amount);
    const to = destination(kind, body.toAddress);

    const senderPubkey = fromHex(caller.publicKey);
    const address = addressBytesFromPublicKey(senderPubkey);
    const [account, validator] = await Promise.all([this.base.chain.account(address), kind === 'unstake' ? this.base.chain.validator(address) : undefined]);
    const payload: Payload = kind === 'send' ? { kind: 'Transfer', to: to!, amount } : kind === 'stake' ? { kind: 'Stake', amount } : { kind: 'Unstake', amount };
    const tx: UnsignedTransaction = { senderPubkey, nonce: account.nonce, payload };
    const fee = feeFor(payload.kind);
    // an Unstake moves stake, not balance: only its fee is spent
    const spend = kind === 'unstake' ? fee : amount + fee;
    const nonce = jsonInt(account.nonce);
    const out: PreparedTransaction = {
      chain: 'ledger',
      kind,
      assetId: 'lgr',
      amount: amount.toString(),
      unsigned: { sender_pubkey: Array.from(senderPubkey), nonce, payload: payloadToJson(payload) },
      nonce,
      fee: fee.toString(),
      signingBytes: toHex(signingBytes(this.base.chainId, tx)),
      chainId: this.base.chainId,
      balance: account.balance.toString(),
      sufficientBalance: account.balance >= spend,
    };
    if (kind === 'unstake') {
      const staked = validator?.staked ?? 0n;
      out.staked = staked.toString();
      out.sufficientStake = staked >= amount;
    }
    return out;
  }
}

/** A send's recipient (required, a ledger address); stake and unstake take none. */
function destination(kind: PrepareKind, value: unknown): Uint8Array | undefined {
  const given = value !== undefined && value !== null && value !== '';
  if (kind !== 'send') {
    if (given) throw validation(`toAddress is only for a send; a ${kind} moves the caller's own funds`, 'toAddress');
    return undefined;
  }
  if (!given) throw validation('toAddress is required for a send', 'toAddress');
  if (!isAddress(value)) throw new HttpProblem('validation', 'toAddress must be a ledger address (base58 of 20 bytes)', { field: 'toAddress', code: 'BAD_ADDRESS' });
  return parseAddress(value);
}

/** as the protocol's JSON writes integers: a number while it is safe, else a bare big literal */
function jsonInt(n: bigint): number | bigint {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}
