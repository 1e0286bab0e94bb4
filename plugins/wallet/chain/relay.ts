import { isLedgerError } from '../../../node/errors.js';
import type { RequestContext } from '../../../node/http/server.js';
import { toHex } from '../../../node/protocol/bytes.js';
import { parseJson } from '../../../node/protocol/json.js';
import type { PayloadKind } from '../../../node/protocol/payloads.js';
import { MAX_TX_JSON_BYTES, transactionFromJson, transactionHash, verifyTransactionSignature, type Transaction } from '../../../node/protocol/transaction.js';
import { HttpProblem, validation } from '../../common/http/problems.js';
import { refuseSecrets } from '../http/secrets.js';
import type { WalletBase } from '../services.js';

/**
 * Relaying a client-signed transaction (docs/wallet.md, "Relaying"): the backend checks that the
 * caller signed it with their registered key for this chain, then hands the mempool the exact
 * text the client sent. It never re-encodes it and never signs: what the chain executes is what
 * the user's device signed, byte for byte.
 */

export interface RelayResult {
  hash: string;
  status: 'submitted';
}

/** The request body as text, exactly as sent: at most the protocol's JSON limit (413 above), strict UTF-8 (400). */
export async function readTransactionText(ctx: RequestContext): Promise<string> {
  const raw = await ctx.readBody(MAX_TX_JSON_BYTES);
  if (raw.length === 0) throw validation('the body must be the signed transaction JSON object');
  try {
    // fatal: a replacement character would change the bytes; ignoreBOM: keep one, so the parser refuses it
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(raw);
  } catch {
    throw validation('the body is not valid UTF-8');
  }
}

export class Relay {
  constructor(private readonly base: Pick<WalletBase, 'chainId' | 'submit'>) {}

  /**
   * Relays `rawText`, a signed ChainTransaction whose payload is one of `expectedKinds` and whose
   * `sender_pubkey` is the caller's registered key. A malformed body is 400, another sender or a
   * signature that does not verify on this chain 403, a mempool refusal 409 (state) or 400.
   */
  async relay(caller: { publicKey: string }, rawText: string, expectedKinds: readonly PayloadKind[]): Promise<RelayResult> {
    return this.check(rawText, expectedKinds, caller.publicKey);
  }

  /** As relay, for payloads anyone may send on a signer's behalf (a DidRecover carries guardians' signatures). */
  async relayFromAnySender(rawText: string, expectedKinds: readonly PayloadKind[]): Promise<RelayResult> {
    return this.check(rawText, expectedKinds, null);
  }

  private async check(rawText: string, expectedKinds: readonly PayloadKind[], callerKey: string | null): Promise<RelayResult> {
    const { tx } = decodeSignedTransaction(rawText, this.base.chainId);
    if (!expectedKinds.includes(tx.payload.kind)) {
      throw new HttpProblem('validation', `this route relays ${expectedKinds.join(' or ')} transactions, not ${tx.payload.kind}`, { code: 'WRONG_PAYLOAD_KIND', field: 'payload' });
    }
    if (callerKey !== null && toHex(tx.senderPubkey) !== callerKey.toLowerCase()) {
      throw new HttpProblem('forbidden', 'sender_pubkey is not the key registered for this wallet', { code: 'NOT_CALLERS_KEY' });
    }
    if (!verifyTransactionSignature(this.base.chainId, tx)) {
      throw new HttpProblem('forbidden', `the signature does not verify for sender_pubkey on chain ${this.base.chainId}`, { code: 'BAD_SIGNATURE' });
    }
    return { hash: await this.submit(rawText), status: 'submitted' };
  }

  /** Hands the mempool the exact text; its refusals become Problems. */
  async submit(rawText: string): Promise<string> {
    try {
      return await this.base.submit(rawText);
    } catch (err) {
      throw mempoolProblem(err);
    }
  }
}

/**
 * A client-signed ChainTransaction's JSON text, decoded: 400 when it is not JSON, not an object,
 * carries a secret field, is not a transaction or names another chain. `hash` is the one the
 * mempool will give it.
 */
export function decodeSignedTransaction(rawText: string, chainId: string): { tx: Transaction; hash: string } {
  let value: unknown;
  try {
    value = parseJson(rawText);
  } catch (err) {
    throw validation(`the body is not valid JSON: ${(err as Error).message.slice(0, 200)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw validation('the body must be the signed ChainTransaction JSON object');
  refuseSecrets(value);
  const { tx, chainId: named } = transactionFromJson(value);
  if (named !== undefined && named !== chainId) {
    throw new HttpProblem('validation', `the transaction is for chain ${JSON.stringify(named)}; this wallet relays to ${JSON.stringify(chainId)}`, { code: 'WRONG_CHAIN', field: 'chain_id' });
  }
  return { tx, hash: transactionHash(chainId, tx) };
}

/**
 * The mempool's refusals as Problems. Conflicts with state (NONCE_TOO_LOW, NONCE_TAKEN,
 * ALREADY_KNOWN, INSUFFICIENT_BALANCE, UNSTAKE_EXCEEDS_STAKE...) keep their kind (409) and invalid
 * input stays 400, through the router's own mapping; the `limit` kind is 413 only for size.
 */
function mempoolProblem(err: unknown): unknown {
  if (!isLedgerError(err)) return err;
  const code = { code: err.code };
  if (err.code === 'BAD_SIGNATURE') return new HttpProblem('forbidden', err.message, code);
  if (err.code === 'MEMPOOL_FULL') return new HttpProblem('unavailable', err.message, { ...code, headers: { 'retry-after': '5' } });
  if (err.kind === 'limit' && err.code !== 'TX_TOO_LARGE') return new HttpProblem('conflict', err.message, code);
  return err;
}
