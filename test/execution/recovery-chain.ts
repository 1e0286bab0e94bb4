import { keyPairFromSeed, type Ed25519KeyPair } from '../../node/crypto/ed25519.js';
import { writeProtocolVersion } from '../../node/execution/chain-params.js';
import type { BlockContext } from '../../node/execution/context.js';
import { executeBlock } from '../../node/execution/block.js';
import { StateOverlay, type StateReader } from '../../node/execution/overlay.js';
import { readDid, writeAccount } from '../../node/execution/state-access.js';
import { addressBytesFromPublicKey } from '../../node/protocol/address.js';
import { UNIT } from '../../node/protocol/amount.js';
import { toHex } from '../../node/protocol/bytes.js';
import { didForPublicKey } from '../../node/protocol/did.js';
import type { Payload } from '../../node/protocol/payloads.js';
import { signRecovery } from '../../node/protocol/recovery.js';
import { signTransaction, type Transaction } from '../../node/protocol/transaction.js';

/** A chain in memory with an owner, three guardians and a few other keys, for the social recovery tests. */

export const CHAIN = 'test-chain';
export const NETWORK = 'testnet';
export const key = (n: number) => keyPairFromSeed(new Uint8Array(32).fill(n));
export const owner = key(1);
export const guardians = [key(2), key(3), key(4)];
export const relayer = key(5);
export const fresh = key(6);
export const stranger = key(7);
export const proposer = key(9);
export const DID = didForPublicKey(NETWORK, owner.publicKey);
export const A = addressBytesFromPublicKey(owner.publicKey);
export const G = guardians.map((g) => didForPublicKey(NETWORK, g.publicKey));
export const STRANGER = didForPublicKey(NETWORK, stranger.publicKey);

/** A chain in memory: each block applies its writes onto the state the next one reads. */
export class Chain {
  state: StateReader;
  height = 0;
  private nonces = new Map<string, bigint>();

  /** `protocolVersion` as genesis would write it (1: none) */
  constructor(protocolVersion = 1) {
    const s = new StateOverlay({ get: async () => undefined });
    for (const k of [owner, ...guardians, relayer, fresh, stranger]) writeAccount(s, addressBytesFromPublicKey(k.publicKey), { balance: UNIT, nonce: 0n });
    writeProtocolVersion(s, protocolVersion);
    this.state = s;
  }

  tx(kp: Ed25519KeyPair, payload: Payload): Transaction {
    const id = toHex(kp.publicKey);
    const nonce = this.nonces.get(id) ?? 0n;
    this.nonces.set(id, nonce + 1n);
    return signTransaction(CHAIN, { senderPubkey: kp.publicKey, nonce, payload }, kp.seed);
  }

  async block(txs: Transaction[] = []) {
    this.height += 1;
    const ctx: BlockContext = { network: NETWORK, height: this.height, round: this.height, parentHash: new Uint8Array(32), timestampMs: 1_000 * this.height, proposer: addressBytesFromPublicKey(proposer.publicKey) };
    const res = await executeBlock(this.state, CHAIN, ctx, txs);
    const next = new StateOverlay(this.state);
    for (const c of res.changes) c.value ? next.put(c.key, c.value) : next.delete(c.key);
    this.state = next;
    return res.txs.map((x) => x.outcome);
  }

  /** Sends one transaction in its own block; returns its outcome. */
  async send(kp: Ed25519KeyPair, payload: Payload) {
    return (await this.block([this.tx(kp, payload)]))[0]!;
  }

  async emptyBlocksUntil(height: number) {
    while (this.height < height) await this.block();
  }

  did() {
    return readDid(this.state, A);
  }
}

/** Owner and guardians have DIDs; the owner's policy names the three guardians. */
export async function setup(threshold = 2, delayBlocks = 0, protocolVersion = 1) {
  const chain = new Chain(protocolVersion);
  await chain.block([owner, ...guardians, stranger].map((k) => chain.tx(k, { kind: 'DidCreate', service: [] })));
  const set = await chain.send(owner, { kind: 'SetRecoveryPolicy', did: DID, guardians: G, threshold, delayBlocks });
  if (set.status !== 'success') throw new Error(set.status);
  return chain;
}

export function signatures(chain: Chain, versionId: number, signers = [0, 1], newKey = fresh.publicKey) {
  return signers.map((i) => ({ guardian: G[i]!, signature: signRecovery(guardians[i]!.seed, { chainId: CHAIN, did: DID, newPublicKey: newKey, versionId }) }));
}

export function recover(sigs: Array<{ guardian: string; signature: Uint8Array }>, newPublicKey = fresh.publicKey): Payload {
  return { kind: 'DidRecover', did: DID, newPublicKey, signatures: sigs };
}

