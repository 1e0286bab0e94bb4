import { keyPairFromSeed, type Ed25519KeyPair } from '../../node/crypto/ed25519.js';
import { StateOverlay, type StateReader } from '../../node/execution/overlay.js';
import { writeAccount, writeDid, writeValidator } from '../../node/execution/state-access.js';
import { Mempool, type MempoolOptions } from '../../node/mempool/index.js';
import { addressBytesFromPublicKey } from '../../node/protocol/address.js';
import { didForPublicKey } from '../../node/protocol/did.js';
import { FEES } from '../../node/protocol/fees.js';
import { stringifyJson } from '../../node/protocol/json.js';
import type { Payload } from '../../node/protocol/payloads.js';
import type { DidRecord } from '../../node/protocol/records.js';
import { signTransaction, transactionToJson, type Transaction } from '../../node/protocol/transaction.js';

/** Test support: deterministic keys, in-memory committed state, signed transactions. */

export const CHAIN = 'mempool-test';
export const NETWORK = 'testnet';
export const TRANSFER_FEE = FEES.Transfer!;

export interface Key extends Ed25519KeyPair {
  address: Uint8Array;
}

export function key(n: number): Key {
  const kp = keyPairFromSeed(new Uint8Array(32).fill(n));
  return { ...kp, address: addressBytesFromPublicKey(kp.publicKey) };
}

export const alice = key(1);
export const bob = key(2);
export const carol = key(3);
export const dave = key(4);

const empty: StateReader = { get: async () => undefined };

export interface AccountSpec {
  key: Key;
  balance: bigint;
  nonce?: bigint;
}

export function state(accounts: AccountSpec[], base: StateReader = empty): StateOverlay {
  const s = new StateOverlay(base);
  for (const a of accounts) writeAccount(s, a.key.address, { balance: a.balance, nonce: a.nonce ?? 0n });
  return s;
}

export function withDid(s: StateOverlay, owner: Key, active = true): StateOverlay {
  const record: DidRecord = {
    did: didForPublicKey(NETWORK, owner.publicKey),
    publicKey: active ? owner.publicKey : null,
    service: [],
    active,
    createdMs: 1,
    updatedMs: 1,
    versionId: active ? 1 : 2,
    txHash: new Uint8Array(32),
  };
  writeDid(s, owner.address, record);
  return s;
}

export function withStake(s: StateOverlay, owner: Key, staked: bigint): StateOverlay {
  writeValidator(s, owner.address, { staked, unbonding: [], reputation: 0, active: false, ed25519PublicKey: new Uint8Array(0), blsPublicKey: new Uint8Array(0) });
  return s;
}

export function sign(k: Key, nonce: bigint, payload: Payload, chainId = CHAIN): Transaction {
  return signTransaction(chainId, { senderPubkey: k.publicKey, nonce, payload }, k.seed);
}

export function transfer(k: Key, nonce: bigint, amount = 1n, to: Key = dave): Transaction {
  return sign(k, nonce, { kind: 'Transfer', to: to.address, amount });
}

export function json(tx: Transaction, chainId?: string): string {
  return stringifyJson(transactionToJson(tx, 'standard', chainId));
}

export function pool(s: StateReader, options: Partial<MempoolOptions> = {}): Mempool {
  return new Mempool({ chainId: CHAIN, network: NETWORK, state: s, ...options });
}

/** A DidCreate whose one service endpoint makes the encoding roughly `extra` bytes longer. */
export function didCreate(k: Key, nonce: bigint, extra = 10): Transaction {
  return sign(k, nonce, { kind: 'DidCreate', service: [{ id: '#s', type: 'T', serviceEndpoint: 'x'.repeat(extra) }] });
}
