import { LedgerError } from '../../../node/errors.js';
import { addressBytesFromPublicKey } from '../../../node/protocol/address.js';
import { toHex } from '../../../node/protocol/bytes.js';
import { parseDid } from '../../../node/protocol/did.js';
import type { DidRecord } from '../../../node/protocol/records.js';
import type { RecoveryPolicyRpc } from '../../../node/protocol/recovery-records.js';
import { verifyTransactionSignature } from '../../../node/protocol/transaction.js';
import { decodeSignedTransaction, type Relay } from '../chain/relay.js';
import { HttpProblem, validation } from '../../common/http/problems.js';
import type { WalletCaller } from '../http/router.js';
import type { WalletBase } from '../services.js';
import type { GuardianStore } from './store.js';

/**
 * The owner's side of recovery on chain: `recovery-prep` gives what a wallet needs to build a
 * SetRecoveryPolicy (its DID, live nonce, versionId, the current policy and its confirmed
 * guardians), and `policy` relays the client-signed transaction unchanged. The backend never
 * signs: it checks that the transaction is the caller's own, for its own DID, and hands the
 * original text to the mempool, which checks it again.
 */

type Chain = Pick<WalletBase, 'chain' | 'network' | 'chainId'>;

export const forbidden = (detail: string, code: string): HttpProblem => new HttpProblem('forbidden', detail, { code });

/** A DID of this network as the chain has it: 400 when malformed or foreign, 404 when it does not exist. */
export async function didOnChain(base: Chain, did: string, field: string): Promise<{ identifier: Uint8Array; record: DidRecord }> {
  let identifier: Uint8Array;
  try {
    const parsed = parseDid(did);
    if (parsed.network !== base.network) throw validation(`${field} is a DID of network ${parsed.network}; this wallet serves ${base.network}`, field);
    identifier = parsed.identifier;
  } catch (err) {
    if (err instanceof LedgerError) throw validation(`${field}: ${err.message}`, field);
    throw err;
  }
  const record = await base.chain.did(identifier);
  if (!record) throw new LedgerError('DID_NOT_FOUND', `${did} does not exist on chain`, 'not_found');
  return { identifier, record };
}

/** Like didOnChain, and 409 when the DID is deactivated. */
export async function activeDid(base: Chain, did: string, field: string): Promise<{ identifier: Uint8Array; record: DidRecord; publicKey: Uint8Array }> {
  const found = await didOnChain(base, did, field);
  if (!found.record.active || !found.record.publicKey) throw new LedgerError('DID_DEACTIVATED', `${did} is deactivated`, 'conflict');
  return { ...found, publicKey: found.record.publicKey };
}

export interface RecoveryPrep {
  did: string;
  /** the caller's account's next nonce, committed state */
  nonce: bigint;
  address: string;
  /** the DID document's versionId now */
  versionId: number;
  /** the policy on chain now (ledger_getRecoveryPolicy), or null */
  policy: RecoveryPolicyRpc | null;
  /** DIDs of the caller's confirmed guardians, in confirmation order: the candidates for the policy */
  guardians: string[];
}

export class PolicyRelay {
  constructor(private readonly d: { base: Pick<WalletBase, 'chain' | 'network' | 'chainId'>; store: Pick<GuardianStore, 'ofOwner'>; relay: Pick<Relay, 'submit'> }) {}

  async prep(caller: WalletCaller): Promise<RecoveryPrep> {
    const { identifier, record } = await this.ownDid(caller);
    const account = await this.d.base.chain.account(addressBytesFromPublicKey(Buffer.from(caller.publicKey, 'hex')));
    const confirmed = (await this.d.store.ofOwner(caller.userId))
      .filter((g) => g.status === 'active' && g.guardianDid !== null)
      .sort((a, b) => (a.acceptedAt ?? '').localeCompare(b.acceptedAt ?? ''));
    return {
      did: caller.did,
      nonce: account.nonce,
      address: caller.address,
      versionId: record.versionId,
      policy: await this.d.base.chain.recoveryPolicy(identifier),
      guardians: confirmed.map((g) => g.guardianDid!),
    };
  }

  /** Relays the caller's SetRecoveryPolicy for its own DID, byte for byte; 403 when it is not theirs. */
  async relay(caller: WalletCaller, text: string): Promise<{ hash: string }> {
    const { tx } = decodeSignedTransaction(text, this.d.base.chainId);
    if (tx.payload.kind !== 'SetRecoveryPolicy') throw validation(`guardian/policy relays a SetRecoveryPolicy, not a ${tx.payload.kind}`, 'payload');
    if (tx.payload.did !== caller.did) throw forbidden(`the policy is for ${tx.payload.did}; you may set only your own DID's policy (${caller.did})`, 'NOT_YOUR_DID');
    if (toHex(tx.senderPubkey) !== caller.publicKey) throw forbidden('sender_pubkey is not your registered key', 'NOT_YOUR_KEY');
    if (!verifyTransactionSignature(this.d.base.chainId, tx)) throw forbidden('the transaction signature does not verify under sender_pubkey', 'BAD_SIGNATURE');
    return { hash: await this.d.relay.submit(text) };
  }

  private async ownDid(caller: WalletCaller): Promise<{ identifier: Uint8Array; record: DidRecord }> {
    try {
      return await didOnChain(this.d.base, caller.did, 'did');
    } catch (err) {
      if (err instanceof LedgerError && err.kind === 'not_found') throw new LedgerError('DID_NOT_ON_CHAIN', `your DID ${caller.did} is not on chain yet; wait for its DidCreate to commit`, 'conflict');
      throw err;
    }
  }
}
