import type { Block } from '../protocol/block.js';
import { didDocumentRpc, type DidDocumentRpc } from '../protocol/did-document.js';
import { credentialVerification } from '../rpc/ledger/credential-view.js';
import type { CredentialRecord } from '../protocol/credential-records.js';
import { recoveryPolicyRpc, type RecoveryPolicyRpc } from '../protocol/recovery-records.js';
import type { Receipt } from '../protocol/receipt.js';
import type { RevocationList } from '../protocol/revocation-list.js';
import type { Account, DidRecord, ValidatorRecord } from '../protocol/records.js';
import type { Transaction } from '../protocol/transaction.js';
import type { ChainStore } from '../state/chain-store.js';
import { responseFromRecord, type LedgerVerificationResponse } from '../protocol/verification-response.js';
import { MAX_LISTED_REQUESTS, statusFilter, verificationRequestView, type VerificationRequestView, type VerificationStatusFilter } from '../rpc/ledger/verification-view.js';

/** What a plugin may read of committed state: lookups only, never a write path. */
export interface ChainView {
  head(): { seq: number; height: number; hash: Uint8Array } | undefined;
  blockBySeq(seq: number): Promise<Block | undefined>;
  blockByHeight(height: number): Promise<Block | undefined>;
  blockByHash(hash: Uint8Array): Promise<Block | undefined>;
  receipt(txHash: string): Promise<Receipt | undefined>;
  transaction(txHash: string): Promise<{ tx: Transaction; seq: number; index: number } | undefined>;
  account(address: Uint8Array): Promise<Account>;
  did(identifier: Uint8Array): Promise<DidRecord | undefined>;
  credential(id: Uint8Array): Promise<CredentialRecord | undefined>;
  credentialsByIssuer(issuer: Uint8Array): Promise<CredentialRecord[]>;
  validator(address: Uint8Array): Promise<ValidatorRecord | undefined>;
  validators(): Promise<Array<{ address: Uint8Array; validator: ValidatorRecord }>>;
  /** undefined when the issuer has no such list */
  isRevoked(issuer: Uint8Array, list: number, index: number): Promise<boolean | undefined>;
  /** the issuer's revocation list `list`, or undefined when it has none */
  revocationList(issuer: Uint8Array, list: number): Promise<RevocationList | undefined>;
  /** the revocation position the issuer's next CredentialRequest must name (ledger_nextRevocationIndex) */
  nextRevocationPosition(issuer: Uint8Array): Promise<{ list: number; index: number }>;
  /** the answer of ledger_credentialVerify: null unless the credential is registered */
  verifyCredential(id: Uint8Array): Promise<{ valid: boolean; credential: Record<string, unknown>; revoked: boolean } | null>;
  /** the DID document as ledger_didResolve returns it, or null */
  resolveDid(identifier: Uint8Array): Promise<DidDocumentRpc | null>;
  /** the DID's recovery policy and pending recovery as ledger_getRecoveryPolicy returns them, or null */
  recoveryPolicy(identifier: Uint8Array): Promise<RecoveryPolicyRpc | null>;
  /** the subject's verification requests as ledger_getVerificationRequests returns them, newest first */
  verificationRequests(subject: Uint8Array, status: VerificationStatusFilter): Promise<VerificationRequestView[]>;
  /** one request as ledger_getVerificationRequest returns it, or null */
  verificationRequest(requestId: string): Promise<VerificationRequestView | null>;
  /** the response as ledger_getVerificationResponse returns it: null while pending or unknown */
  verificationResponse(requestId: string): Promise<LedgerVerificationResponse | null>;
}

export function chainView(store: ChainStore, network: string): ChainView {
  return {
    head: () => {
      const h = store.head();
      return h ? { seq: h.seq, height: h.height, hash: Uint8Array.from(h.hash) } : undefined;
    },
    blockBySeq: (seq) => store.blocks.bySeq(seq),
    blockByHeight: (height) => store.blocks.byHeight(height),
    blockByHash: (hash) => store.blocks.byHash(hash),
    receipt: (txHash) => store.receipts.byTxHash(txHash),
    transaction: async (txHash) => {
      const found = await store.getTransaction(txHash);
      return found ? { tx: found.tx, seq: found.seq, index: found.index } : undefined;
    },
    account: (address) => store.accounts.get(address),
    did: (identifier) => store.dids.get(identifier),
    credential: (id) => store.credentials.get(id),
    credentialsByIssuer: (issuer) => store.credentials.byIssuer(issuer),
    validator: (address) => store.validators.get(address),
    validators: () => store.validators.list(),
    isRevoked: async (issuer, list, index) => (await store.credentials.revocationList(issuer, list))?.isRevoked(index),
    revocationList: (issuer, list) => store.credentials.revocationList(issuer, list),
    nextRevocationPosition: (issuer) => store.credentials.nextPosition(issuer),
    verifyCredential: (id) => credentialVerification(store, network, id),
    resolveDid: async (identifier) => {
      const record = await store.dids.get(identifier);
      return record ? didDocumentRpc(record) : null;
    },
    recoveryPolicy: async (identifier) => {
      const found = await store.dids.recovery(identifier);
      return found ? recoveryPolicyRpc(network, found.policy, found.pending) : null;
    },
    verificationRequests: async (subject, status) => (await store.verifications.bySubject(subject, statusFilter(status), MAX_LISTED_REQUESTS)).map(verificationRequestView),
    verificationRequest: async (requestId) => {
      const v = await store.verifications.get(requestId);
      return v ? verificationRequestView(v) : null;
    },
    verificationResponse: async (requestId) => {
      const v = await store.verifications.get(requestId);
      return (v && responseFromRecord(v, store.chainId)) ?? null;
    },
  };
}
