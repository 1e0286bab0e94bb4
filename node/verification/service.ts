import type { Block } from '../protocol/block.js';
import type { Credential } from '../protocol/credential-document.js';
import type { Transaction } from '../protocol/transaction.js';
import { readValidatorSet } from '../execution/validator-set.js';
import type { Logger } from '../logging.js';
import type { Mempool } from '../mempool/index.js';
import type { NodeMetrics } from '../metrics.js';
import { bytesEqual } from '../protocol/bytes.js';
import { authenticationKeys } from '../protocol/did-document.js';
import { parseDid } from '../protocol/did.js';
import type { VerifyPool } from '../rpc/verification/pool.js';
import { bbsVerifyCost } from '../rpc/verification/cost.js';
import type { ChainStore } from '../state/chain-store.js';
import { answersIn } from './answer-sender.js';
import { AnswerSightings } from './answer-sightings.js';
import { Answerer } from './answerer.js';
import type { TipView } from './tip-view.js';
import { RecentIds } from './recent-ids.js';
import { didStateOf, type ChainView } from './check.js';
import { PresentationIntake, type PresentationNetwork } from './intake.js';

const DUTY = { duty: true };
/** how many request ids a node remembers having held (mempool, blocks), for presentations that come before their request is in its state */
const EXPECTED_LIMIT = 20_000;

/**
 * The node's verification service, composed: presentations in from the RPC and the peers, checked
 * by this validator's answerer with the proofs in the verification pool, answers out through the
 * mempool. A node that is no validator only relays.
 */
export function startVerificationService(o: {
  chainId: string;
  network: string;
  store: ChainStore;
  /** the requests as the answerer reads them: after this node's newest block (tip-view.ts) */
  requests: Pick<TipView, 'verification' | 'moved'>;
  /** the blocks this node validates or proposes (the consensus engine's 'block' event) */
  blocks?: { on(event: 'block', listener: (b: Block) => void): unknown };
  mempool: Mempool;
  p2p: PresentationNetwork;
  pool: VerifyPool;
  /** the validator's key; undefined on a node that only follows */
  key?: { seed: Uint8Array; publicKey: Uint8Array };
  metrics: Pick<NodeMetrics, 'verificationAnswers' | 'verificationAnswerTransactions' | 'presentations'>;
  /** config `verification`: a standby member's delay and the answer window (defaults in defaults.ts) */
  timing?: { standbyDelayMs: number; answerWindowMs: number };
  log: Logger;
}): PresentationIntake {
  const { store, mempool } = o;
  const didOf = async (did: string) => {
    const parsed = parseDid(did);
    const record = parsed.network === o.network ? await store.dids.get(parsed.identifier) : undefined;
    return record;
  };
  const chain: ChainView = {
    did: async (did) => {
      const r = await didOf(did);
      return r ? didStateOf(r) : undefined;
    },
    credential: (id) => store.credentials.get(id),
    issuerKey: async (did) => {
      const r = await didOf(did);
      return r ? authenticationKeys(r)[0] : undefined;
    },
  };
  const sightings = new AnswerSightings();
  // requests this node holds in its mempool or has seen in a block: a presentation for one of them
  // waits for it to reach the tip's state (intake.ts)
  const expected = new RecentIds(EXPECTED_LIMIT);
  const expect = (tx: Transaction) => {
    if (tx.payload.kind === 'VerificationRequest') expected.add(tx.payload.request.requestId);
  };
  o.blocks?.on('block', (b) => b.transactions.forEach(expect));
  mempool.onAdmitted(({ tx }) => {
    expect(tx);
    if (o.key) for (const a of answersIn(tx.payload)) sightings.record(a.requestId, tx.senderPubkey);
  });
  const answerer =
    o.key &&
    new Answerer({
      chainId: o.chainId,
      seed: o.key.seed,
      publicKey: o.key.publicKey,
      verification: (id) => o.requests.verification(id),
      validatorSet: () => readValidatorSet(store.stateReader()),
      check: {
        chain,
        verifyBbs: (input) => o.pool.verifyBbs(input, bbsVerifyCost(input.totalMessageCount), DUTY),
        verifyDirect: (credential: Credential, key: Uint8Array) => o.pool.verifyCredentialProof(credential, key, DUTY),
        hashCredential: (credential: Credential) => o.pool.credentialHash(credential, DUTY),
      },
      nextNonce: async (address) => mempool.pendingNonce(address, (await store.accounts.get(address)).nonce),
      submit: async (tx) => void (await mempool.admit(tx)),
      sightings,
      ...(o.timing ?? {}),
      log: o.log,
      count: (result) => o.metrics.verificationAnswers.inc({ result }),
      countTransaction: () => o.metrics.verificationAnswerTransactions.inc(),
    });
  return new PresentationIntake({
    network: o.network,
    chain: { verification: (id) => o.requests.verification(id), did: (id) => store.dids.get(id) },
    expected: (id) => expected.has(id),
    moved: () => o.requests.moved(),
    p2p: o.p2p,
    ...(answerer ? { answerer } : {}),
    isValidator: async (address) => (await readValidatorSet(store.stateReader()))?.validators.some((m) => bytesEqual(m.address, address)) ?? false,
    log: o.log,
    count: (source) => o.metrics.presentations.inc({ source }),
  });
}
