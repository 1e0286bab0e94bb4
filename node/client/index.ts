/**
 * `ledger/client`: what a dApp needs to talk to a ledger node: a typed JSON-RPC client, a
 * transaction builder that signs locally, and the helpers for keys, addresses and amounts.
 */
export { RpcClient, type BatchResult, type RpcCall, type RpcClientOptions } from './rpc-client.js';
export { RpcError, RpcTransportError } from './errors.js';
export {
  buildDidCreate,
  buildDidDeactivate,
  buildDidRecover,
  buildSetRecoveryPolicy,
  buildStake,
  buildTransfer,
  buildUnstake,
  buildValidatorRegister,
  guardianSignature,
  signAndEncode,
  waitForReceipt,
  type GuardianSignature,
  type SignedTransaction,
  type TxBase,
} from './builder.js';
export type * from './types.js';
export { keyPairFromSeed, generateSeed } from '../crypto/ed25519.js';
export { addressFromPublicKey, isAddress } from '../protocol/address.js';
export { didForPublicKey, parseDid } from '../protocol/did.js';
export { formatTokens, parseTokens, NATIVE_TOKEN, UNIT } from '../protocol/amount.js';
export { feeFor, FEES } from '../protocol/fees.js';
export { fromHex, toHex } from '../protocol/bytes.js';
export { verifyTransactionSignature, transactionFromJson, type Transaction, type UnsignedTransaction } from '../protocol/transaction.js';
export type { ServiceEndpoint } from '../protocol/payloads.js';
