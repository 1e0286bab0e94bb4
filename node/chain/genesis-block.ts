import { StateOverlay, type StateChange, type StateReader } from '../execution/overlay.js';
import { writeAccount, writeValidator } from '../execution/state-access.js';
import { writeGenesisValidatorSet } from '../execution/validator-set.js';
import { writeGovernance, writeProtocolVersion, writeValidatorKycLevel } from '../execution/chain-params.js';
import { ADDRESS_LENGTH } from '../protocol/address.js';
import { blockHash, type Block, type BlockHeader } from '../protocol/block.js';
import { ZERO_HASH } from '../protocol/merkle.js';
import { EMPTY_ROOT, updateTree, type TreeNodeReader } from '../state/tree/index.js';

/** What the genesis block needs from a genesis file. */
export interface GenesisState {
  genesisTimeMs: number;
  accounts: ReadonlyArray<{ address: Uint8Array; balance: bigint }>;
  validators: ReadonlyArray<{ address: Uint8Array; ed25519PublicKey: Uint8Array; blsPublicKey: Uint8Array; stake: bigint; reputation: number }>;
  /** heights per epoch (default 100) */
  epochLength?: number;
  /** the credential governance address */
  governance?: Uint8Array;
  /** the KYC level validators need after genesis; absent or 0: no KYC rule */
  validatorKycLevel?: number;
  /** absent or 1: the rules of version 1 */
  protocolVersion?: number;
}

export interface GenesisBuild {
  block: Block;
  changes: StateChange[];
  treeNodes: Map<string, Uint8Array>;
}

const emptyState: StateReader = { get: async () => undefined };
const emptyNodes: TreeNodeReader = { getNode: async () => undefined };

/** Block seq 0: no transactions, the genesis state's root, and a QC that certifies nothing. */
export async function buildGenesisBlock(g: GenesisState): Promise<GenesisBuild> {
  const state = new StateOverlay(emptyState);
  for (const a of g.accounts) writeAccount(state, a.address, { balance: a.balance, nonce: 0n });
  const kyc = g.validatorKycLevel ?? 0;
  if (kyc > 0) writeValidatorKycLevel(state, kyc);
  for (const v of g.validators) {
    writeValidator(state, v.address, {
      staked: v.stake,
      unbonding: [],
      reputation: v.reputation,
      active: false,
      ed25519PublicKey: v.ed25519PublicKey,
      blsPublicKey: v.blsPublicKey,
      // genesis is the trust root: its validators need no credential
      ...(kyc > 0 ? { qualified: true } : {}),
    });
  }
  // epoch 0's set, and `active` for its members
  await writeGenesisValidatorSet(state, g.epochLength);
  if (g.governance) writeGovernance(state, g.governance);
  writeProtocolVersion(state, g.protocolVersion ?? 1);
  const changes = state.changes();
  const tree = await updateTree(emptyNodes, EMPTY_ROOT, changes);
  const header: BlockHeader = {
    height: 0,
    round: 0,
    parentHash: ZERO_HASH,
    stateRoot: tree.root,
    transactionsRoot: ZERO_HASH,
    timestampMs: g.genesisTimeMs,
    proposer: new Uint8Array(ADDRESS_LENGTH),
    justify: { round: 0, height: 0, blockHash: ZERO_HASH, signers: new Uint8Array(0), signature: new Uint8Array(0) },
  };
  return { block: { header, hash: blockHash(header), transactions: [] }, changes, treeNodes: tree.nodes };
}
