import type { Evidence } from '../../consensus/types.js';
import { invalid, LedgerError } from '../../errors.js';
import { lastHeightOf, readValidatorSet } from '../../execution/validator-set.js';
import { formatAddress, parseAddress } from '../../protocol/address.js';
import { bytesEqual, toHex } from '../../protocol/bytes.js';
import type { ValidatorSetRecord } from '../../protocol/records.js';
import { address, optionalParam, uint } from '../params.js';
import { defineMethod, type RpcMethod } from '../server.js';
import type { RpcContext } from './context.js';

/** One signed item of a conflicting pair, as JSON: what it committed to and its BLS signature. */
function signedItem(e: Evidence, which: 'first' | 'second') {
  if (e.kind === 'double-vote') {
    const v = e[which];
    return { height: v.height, block_hash: toHex(v.blockHash), signature: toHex(v.signature) };
  }
  const p = e[which];
  return { height: p.block.header.height, block_hash: toHex(p.block.hash), signature: toHex(p.signature) };
}

export function evidenceToJson(e: Evidence) {
  return { kind: e.kind, epoch: e.epoch, round: e.round, validator: formatAddress(e.validator), first: signedItem(e, 'first'), second: signedItem(e, 'second') };
}

/**
 * Beyond seed 002's table (documented in docs/rpc.md): the current epoch and its set, and the
 * equivocation evidence this node has seen (each item holds both BLS signatures, so anyone can
 * check it against the validator's key).
 */
export function consensusMethods(ctx: RpcContext): RpcMethod[] {
  /** The set of the epoch `height` is in: the current one, or one this node kept (ChainStore.epochs). */
  const epochAt = async (height: number, current: ValidatorSetRecord): Promise<ValidatorSetRecord> => {
    if (height > lastHeightOf(current)) {
      throw invalid('EPOCH_NOT_CHOSEN', `height ${height} is past the current epoch ${current.epoch}, which ends at height ${lastHeightOf(current)}; the set of a later epoch is chosen at that height`, {
        lastHeight: lastHeightOf(current),
      });
    }
    const set = height >= current.firstHeight ? current : await ctx.store.epochs.atHeight(height);
    if (!set) {
      const earliest = await ctx.store.epochs.earliest();
      throw new LedgerError('EPOCH_NOT_KEPT', `this node keeps validator sets from height ${earliest?.firstHeight ?? current.firstHeight} (epoch ${earliest?.epoch ?? current.epoch}); height ${height} is older`, 'not_found', {
        earliestHeight: earliest?.firstHeight ?? current.firstHeight,
      });
    }
    return set;
  };

  return [
    defineMethod({
      name: 'ledger_getEpoch',
      params: [optionalParam('height', uint())],
      handler: async (height) => {
        const current = await readValidatorSet(ctx.store.stateReader());
        if (!current) return null;
        const set = height === undefined ? current : await epochAt(height, current);
        return {
          epoch: set.epoch,
          first_height: set.firstHeight,
          last_height: lastHeightOf(set),
          epoch_length: set.length,
          validators: set.validators.map((v) => ({ address: formatAddress(v.address), bls_public_key: toHex(v.blsPublicKey), weight: Number(v.weight) })),
        };
      },
    }),
    defineMethod({
      name: 'ledger_getConsensusStatus',
      params: [],
      handler: () => {
        const s = ctx.consensus?.();
        if (!s) return null;
        return {
          epoch: s.epoch,
          round: s.round,
          high_qc_round: s.highQcRound,
          locked_round: s.lockedRound,
          last_voted_round: s.lastVotedRound,
          committed_height: s.committedHeight,
          leader: s.leader ? formatAddress(s.leader) : null,
          active_validators: s.active ? s.active.map(formatAddress) : null,
          halted: s.halted ?? null,
        };
      },
    }),
    defineMethod({
      name: 'ledger_getEvidence',
      params: [optionalParam('validator', address())],
      handler: (validator) => {
        const filter = validator === undefined ? undefined : parseAddress(validator);
        return ctx.evidence().filter((e) => !filter || bytesEqual(e.validator, filter)).map(evidenceToJson);
      },
    }),
  ];
}
