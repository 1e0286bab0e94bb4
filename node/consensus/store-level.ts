import type { AbstractLevel } from 'abstract-level';
import { decodeBlock, encodeBlock, type Block } from '../protocol/block.js';
import { ByteWriter, concatBytes, utf8 } from '../protocol/bytes.js';
import { decodeEpochProof, decodeEvidence, decodeSafety, encodeEpochProof, encodeEvidence, encodeSafety } from './codec.js';
import type { ConsensusStore } from './store.js';
import type { EpochProof, Evidence, SafetyState } from './types.js';

type BinaryLevel = AbstractLevel<any, Uint8Array, Uint8Array>;

const SAFETY_KEY = utf8('s');
const BLOCK_PREFIX = utf8('b');
const BLOCK_END = utf8('c');
const EVIDENCE_PREFIX = utf8('e');
const EVIDENCE_END = utf8('f');
const PROOF_PREFIX = utf8('p');

/**
 * ConsensusStore over a LevelDB sublevel with binary keys and values:
 *   "s"          -> encodeSafety(state)
 *   "b" || hash  -> encodeBlock(block)
 *   "e" || u64 n -> encodeEvidence(evidence), n counting from 0 in arrival order
 *   "p" || u64 e -> encodeEpochProof(e, proof): how epoch e ended
 * Create it with `db.sublevel('consensus', { keyEncoding: 'view', valueEncoding: 'view' })`.
 */
export class LevelConsensusStore implements ConsensusStore {
  private evidenceCount: number | undefined;

  constructor(private readonly db: BinaryLevel) {}

  async loadSafety(): Promise<SafetyState | undefined> {
    const v = await this.db.get(SAFETY_KEY);
    return v === undefined ? undefined : decodeSafety(v);
  }

  async saveSafety(state: SafetyState): Promise<void> {
    await this.db.put(SAFETY_KEY, encodeSafety(state));
  }

  async putPendingBlock(block: Block): Promise<void> {
    await this.db.put(concatBytes(BLOCK_PREFIX, block.hash), encodeBlock(block));
  }

  async pendingBlocks(): Promise<Block[]> {
    const out: Block[] = [];
    for await (const v of this.db.values({ gte: BLOCK_PREFIX, lt: BLOCK_END })) out.push(decodeBlock(v));
    return out;
  }

  async deletePendingBlocks(hashes: Uint8Array[]): Promise<void> {
    if (hashes.length === 0) return;
    await this.db.batch(hashes.map((h) => ({ type: 'del' as const, key: concatBytes(BLOCK_PREFIX, h) })));
  }

  async putEvidence(e: Evidence): Promise<void> {
    this.evidenceCount ??= (await this.loadEvidence()).length;
    const key = new ByteWriter().bytes(EVIDENCE_PREFIX).u64(BigInt(this.evidenceCount)).finish();
    this.evidenceCount++;
    await this.db.put(key, encodeEvidence(e));
  }

  async loadEvidence(): Promise<Evidence[]> {
    const out: Evidence[] = [];
    for await (const v of this.db.values({ gte: EVIDENCE_PREFIX, lt: EVIDENCE_END })) out.push(decodeEvidence(v));
    return out;
  }

  async putEpochProof(epoch: number, proof: EpochProof): Promise<void> {
    await this.db.put(proofKey(epoch), encodeEpochProof(epoch, proof));
  }

  async loadEpochProof(epoch: number): Promise<EpochProof | undefined> {
    const v = await this.db.get(proofKey(epoch));
    return v === undefined ? undefined : decodeEpochProof(v);
  }
}

function proofKey(epoch: number): Uint8Array {
  return new ByteWriter().bytes(PROOF_PREFIX).u64(BigInt(epoch)).finish();
}
