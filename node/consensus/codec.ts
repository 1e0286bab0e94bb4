import { invalid, LedgerError } from '../errors.js';
import { ADDRESS_LENGTH } from '../protocol/address.js';
import { decodeBlock, encodeBlock, readQc, writeQc, type Block, type QuorumCertificate } from '../protocol/block.js';
import { ByteReader, ByteWriter } from '../protocol/bytes.js';
import { BLS_SIGNATURE_LENGTH } from './crypto.js';
import type { ConsensusMessage, ConsensusMessageBody, EpochProof, Evidence, Proposal, SafetyState, SyncRequest, TimeoutCertificate, Vote, Timeout } from './types.js';
import { bitmapLength, MAX_VALIDATORS } from './validators.js';

/**
 * Wire codecs for consensus messages: version byte 1, a type byte, u64 epoch, then the body in the canonical
 * big-endian encoding of protocol/bytes.ts. Decoding is strict (exact lengths, no trailing bytes)
 * and size-capped per type before any parsing.
 */

export const WIRE_VERSION = 1;
export const MAX_PROPOSAL_BYTES = 4 * 1024 * 1024;
export const MAX_SYNC_RESPONSE_BYTES = 16 * 1024 * 1024;
export const MAX_SMALL_MESSAGE_BYTES = 64 * 1024;
export const MAX_SYNC_BLOCKS = 64;
const MAX_BITMAP = bitmapLength(MAX_VALIDATORS);

const TYPE = { proposal: 1, vote: 2, timeout: 3, tc: 4, 'sync-request': 5, 'sync-response': 6, qc: 7, 'epoch-request': 8, 'epoch-proof': 9, 'range-request': 10, 'range-response': 11 } as const;

function tooLarge(what: string, size: number, cap: number): LedgerError {
  return new LedgerError('MESSAGE_TOO_LARGE', `${what} of ${size} bytes exceeds ${cap}`, 'limit');
}

function writeSig(w: ByteWriter, sig: Uint8Array): void {
  if (sig.length !== BLS_SIGNATURE_LENGTH) throw invalid('BAD_SIGNATURE_LENGTH', `a signature is ${BLS_SIGNATURE_LENGTH} bytes`);
  w.bytes(sig);
}

function round(r: ByteReader): number {
  const v = r.u64();
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw invalid('BAD_ROUND', 'round or height out of range');
  return Number(v);
}

/** A QC read strictly: bounded bitmap; empty signature only for the signer-less genesis QC. */
export function readQcStrict(r: ByteReader): QuorumCertificate {
  const qc = readQc(r);
  if (qc.round > Number.MAX_SAFE_INTEGER || qc.height > Number.MAX_SAFE_INTEGER) throw invalid('BAD_QC', 'QC round out of range');
  if (qc.signers.length > MAX_BITMAP) throw invalid('BAD_QC', 'QC signer bitmap too long');
  const empty = qc.signers.length === 0 && qc.signature.length === 0;
  if (!empty && qc.signature.length !== BLS_SIGNATURE_LENGTH) throw invalid('BAD_QC', 'QC signature has the wrong length');
  return qc;
}

export function writeTc(w: ByteWriter, tc: TimeoutCertificate): ByteWriter {
  w.u64(BigInt(tc.round));
  writeQc(w, tc.highQc);
  w.u16(tc.signers.length).bytes(tc.signers).u16(tc.highQcRounds.length);
  for (const r of tc.highQcRounds) w.u64(BigInt(r));
  writeSig(w, tc.signature);
  return w;
}

export function readTc(r: ByteReader): TimeoutCertificate {
  const rnd = round(r);
  const highQc = readQcStrict(r);
  const signersLen = r.u16();
  if (signersLen > MAX_BITMAP) throw invalid('BAD_TC', 'TC signer bitmap too long');
  const signers = r.bytes(signersLen);
  const count = r.u16();
  if (count > MAX_VALIDATORS) throw invalid('BAD_TC', 'too many TC entries');
  const highQcRounds: number[] = [];
  for (let i = 0; i < count; i++) highQcRounds.push(round(r));
  return { round: rnd, highQc, signers, highQcRounds, signature: r.bytes(BLS_SIGNATURE_LENGTH) };
}

function writeVote(w: ByteWriter, v: Vote): void {
  w.u64(BigInt(v.round)).u64(BigInt(v.height)).bytes(v.blockHash).bytes(v.voter);
  writeSig(w, v.signature);
}

function readVote(r: ByteReader): Vote {
  return { round: round(r), height: round(r), blockHash: r.bytes(32), voter: r.bytes(ADDRESS_LENGTH), signature: r.bytes(BLS_SIGNATURE_LENGTH) };
}

function writeProposal(w: ByteWriter, p: Proposal): void {
  const block = encodeBlock(p.block);
  w.u64(BigInt(block.length)).bytes(block);
  if (p.tc) writeTc(w.u8(1), p.tc);
  else w.u8(0);
  writeSig(w, p.signature);
}

function readProposal(r: ByteReader): Proposal {
  const len = r.u64();
  if (len > BigInt(MAX_PROPOSAL_BYTES)) throw tooLarge('block', Number(len), MAX_PROPOSAL_BYTES);
  const block = decodeBlock(r.bytes(Number(len)));
  const flag = r.u8();
  if (flag > 1) throw invalid('BAD_FLAG', 'TC presence flag must be 0 or 1');
  const tc = flag === 1 ? readTc(r) : undefined;
  return { block, tc, signature: r.bytes(BLS_SIGNATURE_LENGTH) };
}

/** How many blocks a sync request may ask for: 1 to MAX_SYNC_BLOCKS. */
function readMax(r: ByteReader): number {
  const max = r.u16();
  if (max === 0 || max > MAX_SYNC_BLOCKS) throw invalid('BAD_SYNC_REQUEST', `max must be 1 to ${MAX_SYNC_BLOCKS}`);
  return max;
}

function writeBlocks(w: ByteWriter, blocks: Block[]): void {
  w.u16(blocks.length);
  for (const b of blocks) {
    const bytes = encodeBlock(b);
    w.u64(BigInt(bytes.length)).bytes(bytes);
  }
}

function readBlocks(r: ByteReader, what: string): Block[] {
  const count = r.u16();
  if (count > MAX_SYNC_BLOCKS) throw invalid('BAD_SYNC_RESPONSE', `${what}: at most ${MAX_SYNC_BLOCKS} blocks`);
  const blocks: Block[] = [];
  for (let i = 0; i < count; i++) {
    const len = r.u64();
    if (len > BigInt(MAX_PROPOSAL_BYTES)) throw tooLarge('block', Number(len), MAX_PROPOSAL_BYTES);
    blocks.push(decodeBlock(r.bytes(Number(len))));
  }
  return blocks;
}

export function encodeMessage(msg: ConsensusMessage): Uint8Array {
  const w = new ByteWriter().u8(WIRE_VERSION).u8(TYPE[msg.type]).u64(BigInt(msg.epoch));
  switch (msg.type) {
    case 'proposal':
      writeProposal(w, msg.proposal);
      break;
    case 'vote':
      writeVote(w, msg.vote);
      break;
    case 'timeout':
      writeQc(w.u64(BigInt(msg.timeout.round)), msg.timeout.highQc).bytes(msg.timeout.voter);
      writeSig(w, msg.timeout.signature);
      break;
    case 'tc':
      writeTc(w, msg.tc);
      break;
    case 'qc':
      writeQc(w, msg.qc);
      break;
    case 'sync-request':
      w.bytes(msg.request.hash).u64(BigInt(msg.request.stopAtHeight)).u16(msg.request.max);
      break;
    case 'sync-response':
      writeBlocks(w, msg.blocks);
      break;
    case 'range-request':
      w.u64(BigInt(msg.request.fromHeight)).u16(msg.request.max);
      break;
    case 'range-response':
      writeBlocks(w, msg.blocks);
      break;
    case 'epoch-request':
      break;
    case 'epoch-proof':
      writeBlocks(w, msg.proof.blocks);
      writeQc(w, msg.proof.qc);
      break;
  }
  return w.finish();
}

export function decodeMessage(bytes: Uint8Array): ConsensusMessage {
  if (bytes.length > MAX_SYNC_RESPONSE_BYTES) throw tooLarge('consensus message', bytes.length, MAX_SYNC_RESPONSE_BYTES);
  const r = new ByteReader(bytes);
  const version = r.u8();
  if (version !== WIRE_VERSION) throw invalid('BAD_VERSION', `unknown consensus wire version ${version}`);
  const type = r.u8();
  const big = type === TYPE['sync-response'] || type === TYPE['epoch-proof'] || type === TYPE['range-response'];
  const cap = type === TYPE.proposal ? MAX_PROPOSAL_BYTES + 64 * 1024 : big ? MAX_SYNC_RESPONSE_BYTES : MAX_SMALL_MESSAGE_BYTES;
  if (bytes.length > cap) throw tooLarge('consensus message', bytes.length, cap);
  const epoch = round(r);
  let msg: ConsensusMessageBody;
  switch (type) {
    case TYPE.proposal:
      msg = { type: 'proposal', proposal: readProposal(r) };
      break;
    case TYPE.vote:
      msg = { type: 'vote', vote: readVote(r) };
      break;
    case TYPE.timeout: {
      const t: Timeout = { round: round(r), highQc: readQcStrict(r), voter: r.bytes(ADDRESS_LENGTH), signature: r.bytes(BLS_SIGNATURE_LENGTH) };
      msg = { type: 'timeout', timeout: t };
      break;
    }
    case TYPE.tc:
      msg = { type: 'tc', tc: readTc(r) };
      break;
    case TYPE.qc:
      msg = { type: 'qc', qc: readQcStrict(r) };
      break;
    case TYPE['sync-request']: {
      const request: SyncRequest = { hash: r.bytes(32), stopAtHeight: round(r), max: readMax(r) };
      msg = { type: 'sync-request', request };
      break;
    }
    case TYPE['sync-response']:
      msg = { type: 'sync-response', blocks: readBlocks(r, 'sync response') };
      break;
    case TYPE['range-request']: {
      const request = { fromHeight: round(r), max: readMax(r) };
      msg = { type: 'range-request', request };
      break;
    }
    case TYPE['range-response']:
      msg = { type: 'range-response', blocks: readBlocks(r, 'range response') };
      break;
    case TYPE['epoch-request']:
      msg = { type: 'epoch-request' };
      break;
    case TYPE['epoch-proof']: {
      const blocks = readBlocks(r, 'epoch proof');
      if (blocks.length === 0) throw invalid('BAD_EPOCH_PROOF', 'an epoch proof holds at least the boundary block');
      msg = { type: 'epoch-proof', proof: { blocks, qc: readQcStrict(r) } };
      break;
    }
    default:
      throw invalid('BAD_MESSAGE_TYPE', `unknown consensus message type ${type}`);
  }
  r.end();
  return { ...msg, epoch };
}

/** The persisted safety state: u64 epoch, u64 last voted round, locked QC, high QC, u8 flag + high TC. */
export function encodeSafety(s: SafetyState): Uint8Array {
  const w = new ByteWriter().u8(WIRE_VERSION).u64(BigInt(s.epoch)).u64(BigInt(s.lastVotedRound));
  writeQc(w, s.lockedQc);
  writeQc(w, s.highQc);
  if (s.highTc) writeTc(w.u8(1), s.highTc);
  else w.u8(0);
  return w.finish();
}

export function decodeSafety(bytes: Uint8Array): SafetyState {
  const r = new ByteReader(bytes);
  if (r.u8() !== WIRE_VERSION) throw invalid('BAD_VERSION', 'unknown safety state version');
  const epoch = round(r);
  const lastVotedRound = round(r);
  const lockedQc = readQcStrict(r);
  const highQc = readQcStrict(r);
  const flag = r.u8();
  if (flag > 1) throw invalid('BAD_FLAG', 'TC presence flag must be 0 or 1');
  const highTc = flag === 1 ? readTc(r) : undefined;
  r.end();
  return { epoch, lastVotedRound, lockedQc, highQc, highTc };
}

/** A stored epoch proof: the wire form of the epoch-proof message. */
export function encodeEpochProof(epoch: number, proof: EpochProof): Uint8Array {
  return encodeMessage({ type: 'epoch-proof', epoch, proof });
}

export function decodeEpochProof(bytes: Uint8Array): EpochProof {
  const msg = decodeMessage(bytes);
  if (msg.type !== 'epoch-proof') throw invalid('BAD_EPOCH_PROOF', 'not an epoch proof');
  return msg.proof;
}

/**
 * Stored equivocation evidence: version, kind (1 double proposal, 2 double vote), then the two
 * conflicting signed messages in their wire encoding, each u64-length-prefixed. Round and
 * validator are read back from the messages themselves.
 */
export function encodeEvidence(e: Evidence): Uint8Array {
  const pair: ConsensusMessage[] =
    e.kind === 'double-proposal'
      ? [{ type: 'proposal', epoch: e.epoch, proposal: e.first }, { type: 'proposal', epoch: e.epoch, proposal: e.second }]
      : [{ type: 'vote', epoch: e.epoch, vote: e.first }, { type: 'vote', epoch: e.epoch, vote: e.second }];
  const w = new ByteWriter().u8(WIRE_VERSION).u8(e.kind === 'double-proposal' ? 1 : 2);
  for (const m of pair) {
    const bytes = encodeMessage(m);
    w.u64(BigInt(bytes.length)).bytes(bytes);
  }
  return w.finish();
}

export function decodeEvidence(bytes: Uint8Array): Evidence {
  const r = new ByteReader(bytes);
  if (r.u8() !== WIRE_VERSION) throw invalid('BAD_VERSION', 'unknown evidence version');
  const kind = r.u8();
  const read = (): ConsensusMessage => {
    const len = r.u64();
    if (len > BigInt(MAX_SYNC_RESPONSE_BYTES)) throw tooLarge('evidence message', Number(len), MAX_SYNC_RESPONSE_BYTES);
    return decodeMessage(r.bytes(Number(len)));
  };
  const first = read();
  const second = read();
  r.end();
  if (first.epoch !== second.epoch) throw invalid('BAD_EVIDENCE', 'the two messages of evidence are from different epochs');
  if (kind === 1 && first.type === 'proposal' && second.type === 'proposal') {
    const h = first.proposal.block.header;
    return { kind: 'double-proposal', epoch: first.epoch, round: h.round, validator: h.proposer, first: first.proposal, second: second.proposal };
  }
  if (kind === 2 && first.type === 'vote' && second.type === 'vote') {
    return { kind: 'double-vote', epoch: first.epoch, round: first.vote.round, validator: first.vote.voter, first: first.vote, second: second.vote };
  }
  throw invalid('BAD_EVIDENCE', `evidence kind ${kind} does not match its messages`);
}
