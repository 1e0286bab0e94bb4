import { LedgerError } from '../errors.js';
import { readAccount, readDid, readValidator } from '../execution/state-access.js';
import { readPendingRecovery, readRecoveryPolicy } from '../execution/recovery.js';
import type { StateReader } from '../execution/overlay.js';
import { decodeBlock, encodeBlock, type Block } from '../protocol/block.js';
import { ByteReader, ByteWriter, fromHex } from '../protocol/bytes.js';
import type { Receipt } from '../protocol/receipt.js';
import type { PendingRecovery, RecoveryPolicy } from '../protocol/recovery-records.js';
import { decodeValidator, STATE_PREFIX, type Account, type DidRecord, type ValidatorRecord } from '../protocol/records.js';
import type { BinarySublevel, StoreOp } from './db.js';
import { decodeReceipt, encodeReceipt } from './receipt-codec.js';

/**
 * One typed repository per entity. The state repositories are read-only views: state changes only
 * through ChainStore.commitBlock. The chain repositories build the batch operations that
 * commitBlock writes, so that each namespace's key layout lives in exactly one place.
 */

/** Big-endian u64: LevelDB's byte order is then numeric order. */
export function u64Key(n: number): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a u64 index: ${n}`);
  return new ByteWriter().u64(BigInt(n)).finish();
}

export class AccountRepository {
  constructor(private readonly state: StateReader) {}

  /** An absent account reads as balance 0, nonce 0, as execution sees it. */
  get(address: Uint8Array): Promise<Account> {
    return readAccount(this.state, address);
  }
}

export class ValidatorRepository {
  constructor(
    private readonly state: StateReader,
    private readonly stateDb: BinarySublevel,
  ) {}

  get(address: Uint8Array): Promise<ValidatorRecord | undefined> {
    return readValidator(this.state, address);
  }

  /** Every validator record, in key order (ascending address): the canonical validator order. */
  async list(): Promise<Array<{ address: Uint8Array; validator: ValidatorRecord }>> {
    const out: Array<{ address: Uint8Array; validator: ValidatorRecord }> = [];
    const range = { gte: Uint8Array.of(STATE_PREFIX.validator), lt: Uint8Array.of(STATE_PREFIX.validator + 1) };
    for await (const [key, value] of this.stateDb.iterator(range)) {
      out.push({ address: key.subarray(1), validator: decodeValidator(value) });
    }
    return out;
  }
}

export class DidRepository {
  constructor(private readonly state: StateReader) {}

  /** By the DID's 20-byte identifier. */
  get(identifier: Uint8Array): Promise<DidRecord | undefined> {
    return readDid(this.state, identifier);
  }

  /** The DID's recovery policy and its pending recovery, or undefined without a policy. */
  async recovery(identifier: Uint8Array): Promise<{ policy: RecoveryPolicy; pending?: PendingRecovery } | undefined> {
    const [policy, pending] = await Promise.all([readRecoveryPolicy(this.state, identifier), readPendingRecovery(this.state, identifier)]);
    if (!policy) return undefined;
    return pending ? { policy, pending } : { policy };
  }
}

export class BlockRepository {
  constructor(
    private readonly blocks: BinarySublevel,
    private readonly seqs: BinarySublevel,
    private readonly heights: BinarySublevel,
  ) {}

  async byHash(hash: Uint8Array): Promise<Block | undefined> {
    const bytes = await this.blocks.get(hash);
    return bytes === undefined ? undefined : decodeBlock(bytes);
  }

  hashBySeq(seq: number): Promise<Uint8Array | undefined> {
    return this.seqs.get(u64Key(seq));
  }

  hashByHeight(height: number): Promise<Uint8Array | undefined> {
    return this.heights.get(u64Key(height));
  }

  async bySeq(seq: number): Promise<Block | undefined> {
    const hash = await this.hashBySeq(seq);
    return hash === undefined ? undefined : this.byHash(hash);
  }

  /** The blocks at these seqs (undefined where none), with one read of each index for all of them. */
  async bySeqs(seqs: readonly number[]): Promise<Array<Block | undefined>> {
    if (seqs.length === 0) return [];
    const hashes = await this.seqs.getMany(seqs.map(u64Key));
    const stored = hashes.filter((h): h is Uint8Array => h !== undefined);
    const bytes = stored.length === 0 ? [] : await this.blocks.getMany(stored);
    let i = 0;
    return hashes.map((h) => {
      if (h === undefined) return undefined;
      const b = bytes[i++];
      return b === undefined ? undefined : decodeBlock(b);
    });
  }

  /** `height` is the proposal height: a height no committed block has reads as undefined. */
  async byHeight(height: number): Promise<Block | undefined> {
    const hash = await this.hashByHeight(height);
    return hash === undefined ? undefined : this.byHash(hash);
  }

  /** The block with the highest seq, read from the seq index itself. */
  async latest(): Promise<{ seq: number; block: Block } | undefined> {
    for await (const [key, hash] of this.seqs.iterator({ reverse: true, limit: 1 })) {
      const block = await this.byHash(hash);
      if (!block) throw new LedgerError('CORRUPT_STORE', 'the seq index names a block that is not stored', 'internal');
      return { seq: Number(new ByteReader(key).u64()), block };
    }
    return undefined;
  }

  putOps(block: Block, seq: number): StoreOp[] {
    return [
      { type: 'put', sublevel: this.blocks, key: block.hash, value: encodeBlock(block) },
      { type: 'put', sublevel: this.seqs, key: u64Key(seq), value: block.hash },
      { type: 'put', sublevel: this.heights, key: u64Key(block.header.height), value: block.hash },
    ];
  }
}

export class ReceiptRepository {
  constructor(private readonly receipts: BinarySublevel) {}

  /** `txHash` is the lowercase hex hash, as in receipts and RPC. */
  async byTxHash(txHash: string): Promise<Receipt | undefined> {
    const bytes = await this.receipts.get(fromHex(txHash, 32, 'tx hash'));
    return bytes === undefined ? undefined : decodeReceipt(bytes);
  }

  /** Receipts of these transactions (undefined where none), in one read. */
  async byTxHashes(txHashes: readonly string[]): Promise<Array<Receipt | undefined>> {
    if (txHashes.length === 0) return [];
    const found = await this.receipts.getMany(txHashes.map((h) => fromHex(h, 32, 'tx hash')));
    return found.map((bytes) => (bytes === undefined ? undefined : decodeReceipt(bytes)));
  }

  putOps(receipts: readonly Receipt[]): StoreOp[] {
    return receipts.map((r) => ({ type: 'put', sublevel: this.receipts, key: fromHex(r.tx_hash, 32, 'tx hash'), value: encodeReceipt(r) }));
  }
}

export interface TxLocation {
  seq: number;
  /** position in the block's transaction list */
  index: number;
}

export class TxIndexRepository {
  constructor(private readonly index: BinarySublevel) {}

  async get(txHash: string): Promise<TxLocation | undefined> {
    const bytes = await this.index.get(fromHex(txHash, 32, 'tx hash'));
    if (bytes === undefined) return undefined;
    const r = new ByteReader(bytes);
    const loc = { seq: Number(r.u64()), index: Number(r.u64()) };
    r.end();
    return loc;
  }

  /** Indexes by the receipts: they carry the tx hash, seq and index of every included transaction. */
  putOps(receipts: readonly Receipt[]): StoreOp[] {
    return receipts.map((r) => ({
      type: 'put',
      sublevel: this.index,
      key: fromHex(r.tx_hash, 32, 'tx hash'),
      value: new ByteWriter().u64(BigInt(r.block_seq)).u64(BigInt(r.tx_index)).finish(),
    }));
  }
}
