import type { ConsensusStatus } from '../../consensus/engine.js';
import type { Evidence } from '../../consensus/types.js';
import type { Mempool } from '../../mempool/index.js';
import type { Genesis } from '../../protocol/genesis.js';
import type { ChainStore } from '../../state/chain-store.js';
import type { VerifyPool } from '../verification/pool.js';
import type { Presentation } from '../../verification/presentation.js';

/** What the `ledger_*` methods read and where they submit. */
export interface RpcContext {
  chainId: string;
  network: string;
  version: string;
  startedAtMs: number;
  /** the genesis this node runs, served to nodes that follow it (`ledger start --follow`) */
  genesis?: Genesis;
  /** this node's libp2p identity and listen addresses; undefined without a network */
  p2p?: () => { peerId: string; addresses: string[] };
  store: ChainStore;
  mempool: Mempool;
  allowSubjectEnumeration: boolean;
  /** where BBS proofs are verified, off the event loop */
  verifier: VerifyPool;
  /** equivocation evidence seen by this node, oldest first */
  evidence: () => Evidence[];
  /** the consensus engine's status; undefined where no engine runs */
  consensus?: () => ConsensusStatus;
  /**
   * prechecks a subject's presentation against the requests this validator answers from, then hands
   * it to the committee (node/verification/intake.ts); undefined without a network
   */
  presentations?: { precheck(p: Presentation): Promise<unknown>; submit(p: Presentation): { peers: number; answeringHere: boolean }; backlog(): number };
  /** from this many checks waiting, new verification work is answered busy; default BACKLOG_BUSY (config `verification.backlogBusy`) */
  verificationBacklogBusy?: number;
}
