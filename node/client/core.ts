/**
 * The light client's default entry (`ledger-node-client`): what a dApp needs to talk to a ledger
 * node: a typed JSON-RPC client, a transaction builder that signs locally, accounts that send,
 * key files, the explorer's block feed, the relying party's side of verification requests, and the
 * helpers for keys, addresses and amounts. It loads no native code and no JSON-LD: the credential
 * document functions are in credentials.ts, a subject's presentations (BBS) in presentation.ts.
 */
export { RpcClient, type BatchResult, type RpcCall, type RpcClientOptions } from './rpc-client.js';
export { busyRetryAfterMs, isBusy, RPC_BUSY, RpcError, RpcTransportError } from './errors.js';
export {
  buildCredentialRequest,
  buildCredentialRevoke,
  buildDidCreate,
  buildDidDeactivate,
  buildDidRecover,
  buildSetRecoveryPolicy,
  buildStake,
  buildTransfer,
  buildUnstake,
  buildValidatorQualify,
  buildValidatorRegister,
  guardianSignature,
  signAndEncode,
  waitForReceipt,
  type WaitOptions,
  type CredentialRequestArgs,
  type GuardianSignature,
  type SignedTransaction,
  type TxBase,
} from './builder.js';
export type * from './types.js';
export { createAccount, type SendBase, type SendingAccount, type SentTransaction } from './account.js';
export { loadKeyFile, type AccountKey, type KeyFile, type ValidatorKey } from './key-file.js';
export {
  buildVerificationRequest,
  DEFAULT_VALID_FOR_BLOCKS,
  MIN_VERIFICATION_FEE,
  verifyVerificationResponse,
  waitForVerificationResponse,
  type ClaimResult,
  type ClaimSpec,
  type ConsensusProof,
  type LedgerVerificationResponse,
  type RequiredClaim,
  type ResponseCheck,
  type ResponseWaitOptions,
  type VerificationRequest,
  type VerificationRequestArgs,
} from './verification.js';
export { feedUrl, subscribeBlocks, type BlockSubscription, type ExplorerBlock, type SubscribeOptions, type WebSocketConstructor, type WebSocketLike } from './blocks.js';
export { isLedgerError, LedgerError, type ErrorKind } from '../errors.js';
export { keyPairFromSeed, generateSeed } from '../crypto/ed25519.js';
export { addressFromPublicKey, isAddress } from '../protocol/address.js';
export { didForPublicKey, parseDid } from '../protocol/did.js';
export { formatTokens, NATIVE_TOKEN, parseTokens, UNIT } from '../protocol/amount.js';
export { feeFor, FEES } from '../protocol/fees.js';
export { fromHex, toHex } from '../protocol/bytes.js';
export { verifyTransactionSignature, transactionFromJson, type Transaction, type UnsignedTransaction } from '../protocol/transaction.js';
export type { ServiceEndpoint } from '../protocol/payloads.js';
export { CREDENTIAL_TYPES, issuanceFee, type CredentialType } from '../protocol/credential-types.js';
export { formatCredentialId, parseCredentialId } from '../protocol/credential-id.js';
export { RevocationList } from '../protocol/revocation-list.js';
export { verifyAttestation } from '../protocol/committee.js';
