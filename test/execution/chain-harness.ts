import { blsKeyFromSeed } from '../../node/consensus/crypto.js';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import type { BlockContext } from '../../node/execution/context.js';
import { executeBlock, type BlockExecution } from '../../node/execution/block.js';
import { writeValidatorKycLevel } from '../../node/execution/chain-params.js';
import { StateOverlay, type StateReader } from '../../node/execution/overlay.js';
import { readValidator, writeAccount, writeValidator } from '../../node/execution/state-access.js';
import { readValidatorSet, writeGenesisValidatorSet } from '../../node/execution/validator-set.js';
import { ADDRESS_LENGTH, addressBytesFromPublicKey, formatAddress } from '../../node/protocol/address.js';
import { UNIT } from '../../node/protocol/amount.js';
import { toHex } from '../../node/protocol/bytes.js';
import { MIN_VALIDATOR_STAKE } from '../../node/protocol/params.js';
import type { Payload } from '../../node/protocol/payloads.js';
import type { ValidatorRecord } from '../../node/protocol/records.js';
import { signTransaction, type Transaction } from '../../node/protocol/transaction.js';
import { EMPTY_ROOT, MemoryNodeStore, updateTree } from '../../node/state/tree/index.js';

/** Execution tests over many blocks: a chain on the in-memory store, and keyed members. */

export const CHAIN = 'execution-test';
export const GENESIS_MS = 1_000_000;
const empty: StateReader = { get: async () => undefined };
export const proposer = new Uint8Array(ADDRESS_LENGTH).fill(0xee);

/** An account key and a BLS vote key, from one seed byte. */
export function member(seedByte: number) {
  const ed = keyPairFromSeed(new Uint8Array(32).fill(seedByte));
  const bls = blsKeyFromSeed(new Uint8Array(32).fill(seedByte));
  return { ed, bls, address: addressBytesFromPublicKey(ed.publicKey) };
}
export type Member = ReturnType<typeof member>;

export function tx(who: Member, nonce: bigint, payload: Payload): Transaction {
  return signTransaction(CHAIN, { senderPubkey: who.ed.publicKey, nonce, payload }, who.ed.seed);
}

/** A chain on the in-memory store: each block's writes land in state and in the state tree. */
export class Chain {
  state = new StateOverlay(empty);
  root = EMPTY_ROOT;
  nodes = new MemoryNodeStore();
  height = 0;
  timestampMs = GENESIS_MS;
  nonces = new Map<string, bigint>();

  /** `kycLevel` turns on the KYC rule of eligibility, as a genesis with `validator_kyc_level` does. */
  static async genesis(
    validators: Array<{ who: Member; stake: bigint }>,
    o: { epochs?: boolean; funded?: Member[]; length?: number; kycLevel?: number } = {},
  ): Promise<Chain> {
    const c = new Chain();
    const s = new StateOverlay(empty);
    for (const m of o.funded ?? []) writeAccount(s, m.address, { balance: 10_000_000n * UNIT, nonce: 0n });
    if (o.kycLevel) writeValidatorKycLevel(s, o.kycLevel);
    for (const { who, stake } of validators) {
      const record = { staked: stake, unbonding: [], reputation: 500, active: stake >= MIN_VALIDATOR_STAKE, ed25519PublicKey: who.ed.publicKey, blsPublicKey: who.bls.publicKey };
      writeValidator(s, who.address, o.kycLevel ? { ...record, qualified: true } : record);
    }
    if (o.epochs !== false) await writeGenesisValidatorSet(s, o.length);
    await c.apply(s.changes());
    return c;
  }

  private async apply(changes: BlockExecution['changes']): Promise<void> {
    for (const ch of changes) ch.value ? this.state.put(ch.key, ch.value) : this.state.delete(ch.key);
    const tree = await updateTree(this.nodes, this.root, changes);
    this.nodes.put(tree.nodes);
    this.root = tree.root;
  }

  ctx(o: { timestampMs?: number } = {}): BlockContext {
    return { network: 'testnet', height: this.height + 1, round: this.height + 1, parentHash: new Uint8Array(32), timestampMs: o.timestampMs ?? this.timestampMs + 1_000, proposer };
  }

  /** Executes the next block (height + 1) and commits its writes. */
  async block(txs: Transaction[] = [], o: { timestampMs?: number } = {}): Promise<BlockExecution> {
    const ctx = this.ctx(o);
    const res = await executeBlock(this.state, CHAIN, ctx, txs);
    await this.apply(res.changes);
    this.height = ctx.height;
    this.timestampMs = ctx.timestampMs;
    return res;
  }

  /** Empty blocks up to and including `height`. */
  async until(height: number): Promise<void> {
    while (this.height < height) await this.block();
  }

  nonce(who: Member): bigint {
    const key = toHex(who.address);
    const n = this.nonces.get(key) ?? 0n;
    this.nonces.set(key, n + 1n);
    return n;
  }

  async set() {
    return readValidatorSet(this.state);
  }

  async members(): Promise<string[]> {
    return ((await this.set())?.validators ?? []).map((v) => formatAddress(v.address));
  }

  async record(who: Member): Promise<ValidatorRecord | undefined> {
    return readValidator(this.state, who.address);
  }
}

