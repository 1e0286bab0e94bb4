import { readFile } from 'node:fs/promises';
import { ChainApp, type CommittedBlock } from './chain/app.js';
import { buildGenesisBlock } from './chain/genesis-block.js';
import { dataPaths, type NodeConfig } from './config/index.js';
import { readValidatorKeyFile } from './config/keyfile.js';
import type { ServiceKeySecret } from './config/service-key-secret.js';
import { BlsQuorumCrypto } from './consensus/crypto.js';
import { ConsensusEngine } from './consensus/engine.js';
import type { HaltReport } from './consensus/divergence.js';
import { LevelConsensusStore } from './consensus/store-level.js';
import { LedgerError } from './errors.js';
import { registerConnectionMetrics } from './http/metrics.js';
import { HttpServer } from './http/server.js';
import type { Logger } from './logging.js';
import { Mempool } from './mempool/index.js';
import { connectMempoolGossip } from './mempool/gossip.js';
import { createMetrics, observeConsensus } from './metrics.js';
import { P2PNetwork } from './network/index.js';
import { addressBytesFromPublicKey, formatAddress } from './protocol/address.js';
import { bytesEqual, toHex } from './protocol/bytes.js';
import type { Block } from './protocol/block.js';
import { parseGenesis } from './protocol/genesis.js';
import { parseJson } from './protocol/json.js';
import { TipView } from './verification/tip-view.js';
import { startVerificationService } from './verification/service.js';
import { Attester } from './attestation/attester.js';
import { HeadSignal } from './plugins/block-stream.js';
import { PluginHost, type PluginState } from './plugins/host.js';
import type { Plugin } from './plugins/types.js';
import { readValidatorSet } from './execution/validator-set.js';
import { createMethods } from './rpc/ledger/index.js';
import { RESOLVER_PATH, resolverRoute } from './rpc/resolver.js';
import { REVOCATION_LIST_PATH, revocationListCredential } from './rpc/revocation-lists.js';
import { createRpcServer } from './rpc/server.js';
import { createVerifyPool } from './rpc/verification/pool.js';
import { createSignatureChecker } from './crypto/signature-checker.js';
import { ChainStore } from './state/chain-store.js';
import { SCHEDULED_KINDS, tasksAt } from './execution/scheduled.js';
import { ATTESTATION_WINDOW } from './protocol/params.js';
import { formatCredentialId } from './protocol/credential-id.js';
import { openDatabase } from './state/db.js';
import { packageVersion } from './cli/package-root.js';
import { crashPlanFromEnv, withCrashPoint } from './crash-points.js';
import { BLOCK_LOG_INTERVAL_MS, BlockLogLimiter, blockLogFields } from './block-log.js';

export interface RunningNode {
  rpcUrl: string;
  /** each enabled plugin that exists: running (with its URL) or failed (with why) */
  plugins: PluginState[];
  /** this node's libp2p listen addresses, each ending in /p2p/<peer id> */
  p2pAddrs: string[];
  close(): Promise<void>;
}

/**
 * The composition root: builds every part in order and closes them in reverse. Consensus and
 * transaction gossip run over libp2p whatever the number of validators: a one-validator network
 * reaches its quorum alone and still serves full nodes that connect to it.
 */
/**
 * `plugins`: the plugins that exist (the entry point passes them; node/ never imports plugins/).
 * `serviceKeySecret`: what their own keys are encrypted under (`ledger start` resolves it).
 */
export async function startNode(config: NodeConfig, log: Logger, options: { plugins?: readonly Plugin[]; serviceKeySecret?: ServiceKeySecret } = {}): Promise<RunningNode> {
  const closers: Array<() => Promise<void> | void> = [];
  const close = async () => {
    for (const c of closers.reverse()) {
      try {
        await c();
      } catch (err) {
        log.error({ err }, 'error while shutting down');
      }
    }
    closers.length = 0;
  };
  try {
    const paths = dataPaths(config.dataDir);
    const genesis = parseGenesis(parseJson(await readFile(paths.genesis, 'utf8')));
    const key = await readValidatorKeyFile(paths.validatorKey);
    const selfAddress = addressBytesFromPublicKey(key.publicKey);
    const me = genesis.validators.find((v) => bytesEqual(v.address, selfAddress));
    if (me && !bytesEqual(me.blsPublicKey, key.blsPublicKey)) {
      throw new LedgerError('BLS_KEY_MISMATCH', `the BLS key in ${paths.validatorKey} is not the one genesis lists for validator ${formatAddress(selfAddress)}`, 'invalid');
    }
    if (!me) log.warn({ address: formatAddress(selfAddress) }, 'this node key is not a genesis validator: it follows the chain, and votes from the first epoch whose set includes it');

    const db = await openDatabase(paths.chainDb);
    closers.push(() => db.close());
    const store = await ChainStore.open(db, { chainId: genesis.chainId });
    if (!store.head()) {
      const g = await buildGenesisBlock(genesis);
      await store.initGenesis(g.block, g.changes, g.treeNodes);
      log.info({ genesis_hash: Buffer.from(g.block.hash).toString('hex') }, 'initialized the chain from genesis');
    }
    const head = store.head()!;
    log.info({ chain_id: genesis.chainId, seq: head.seq, height: head.height }, 'opened the chain');

    const { verifyThreads, ...mempoolLimits } = config.mempool;
    const signatures = createSignatureChecker({ threads: verifyThreads });
    closers.push(() => signatures.close());
    const mempool = new Mempool({ chainId: genesis.chainId, network: genesis.network, state: store.stateReader(), signatures, ...mempoolLimits });
    const crashPlan = crashPlanFromEnv(process.env);
    if (crashPlan) log.warn({ crash_plan: crashPlan }, 'fault injection is on (LEDGER_TEST_CRASH_AT): this process will kill itself');
    const consensusStore = new LevelConsensusStore(db.consensus);
    const stores = crashPlan ? withCrashPoint(crashPlan, store, consensusStore) : { chain: store, consensus: consensusStore };
    const app = new ChainApp({
      chainId: genesis.chainId,
      network: genesis.network,
      store: stores.chain,
      mempool,
      maxBlockTransactions: config.consensus.maxBlockTransactions,
    });

    const genesisBlock = (await store.blocks.bySeq(0))!;
    const committedHead = (await store.blocks.bySeq(head.seq))!;
    const network = await P2PNetwork.create({
      chainId: genesis.chainId,
      seed: key.seed,
      host: config.p2p.host,
      port: config.p2p.port,
      bootstrap: config.p2p.bootstrap,
      log: log.child({ module: 'p2p' }),
    });
    closers.push(() => network.stop());
    const engine = new ConsensusEngine({
      chainId: genesis.chainId,
      self: { address: selfAddress, crypto: new BlsQuorumCrypto(key.blsSecretKey) },
      app,
      transport: network.consensus,
      store: stores.consensus,
      genesis: genesisBlock,
      committedHead,
      pacemaker: { baseTimeoutMs: config.consensus.roundTimeoutMs },
      idleBlockIntervalMs: config.consensus.idleBlockIntervalMs,
      minBlockIntervalMs: config.consensus.minBlockIntervalMs,
      fullBlockTransactions: config.consensus.fullBlockTransactions,
    });

    const isValidator = (a: Uint8Array) => engine.isCurrentValidator(a);
    engine.on('dropped', (e: { reason: string; from?: Uint8Array }) => {
      if (e.from) network.penalize(e.from, `consensus:${e.reason}`);
    });
    mempool.onAdmitted(() => engine.transactionsReady());

    const verifier = createVerifyPool({ threads: config.rpc.verifyThreads, maxQueuedCost: config.rpc.verifyMaxQueuedCost, bbsBatchWindowMs: config.rpc.bbsBatchWindowMs });
    closers.push(() => verifier.close());
    // the verification service takes the metrics; the backlog gauge reads it once it runs
    const verification = { backlog: () => 0 };
    const metrics = createMetrics({ engine, mempool, store, network, verifier, signatures, verification });
    observeConsensus(metrics, { chainId: genesis.chainId, engine, mempool });
    connectMempoolGossip({
      chainId: genesis.chainId,
      mempool,
      gossip: network,
      isValidator,
      upcomingLeaders: (n) => engine.upcomingLeaders(n),
      rounds: engine,
      onResent: (n) => metrics.txResent.inc(n),
      log,
    });
    const blockLog = new BlockLogLimiter();
    const blockLogTimer = setInterval(() => {
      for (const line of blockLog.tick(Date.now())) log[line.level](line.fields, line.msg);
    }, BLOCK_LOG_INTERVAL_MS).unref();
    closers.push(() => clearInterval(blockLogTimer));
    app.on('committed', (c: CommittedBlock) => {
      metrics.committedTxs.inc(c.receipts.length);
      mempool
        .onCommitted(c.receipts.map((r) => r.tx_hash), store.stateReader(), c.block.transactions.map((tx) => tx.senderPubkey))
        .catch((err) => log.error({ err }, 'mempool cleanup failed'));
      const now = Date.now();
      for (const line of blockLog.block(blockLogFields(c.block, c.seq, c.receipts.length, now), now)) log[line.level](line.fields, line.msg);
    });
    const attester = new Attester({
      chainId: genesis.chainId,
      seed: key.seed,
      publicKey: key.publicKey,
      credential: (id) => store.credentials.get(id),
      validatorSet: () => readValidatorSet(store.stateReader()),
      nextNonce: async (address) => mempool.pendingNonce(address, (await store.accounts.get(address)).nonce),
      submit: async (tx) => void (await mempool.admit(tx)),
      log,
      count: (result) => metrics.attestations.inc({ result }),
    });
    if (config.attestation.auto) {
      app.on('committed', (c: CommittedBlock) => attester.onCommitted(c));
      attester.resume(await pendingCredentialRequests(store));
    } else log.info('automatic attestation is off (attestation.auto = false): this validator attests only what its operator sends');
    const requests = new TipView({ stateAfter: (hash) => app.stateAfter(hash), committed: () => store.stateReader(), committedHeight: () => store.head()?.height ?? -1 });
    engine.on('block', (b: Block) => requests.onBlock(b.hash, b.header.height));
    const presentations = startVerificationService({
      chainId: genesis.chainId,
      network: genesis.network,
      store,
      requests,
      blocks: engine,
      mempool,
      p2p: network,
      pool: verifier,
      key,
      metrics,
      timing: { standbyDelayMs: config.verification.standbyDelayMs, answerWindowMs: config.verification.answerWindowMs },
      log: log.child({ module: 'verification' }),
    });
    verification.backlog = () => presentations.backlog();
    engine.on('fault', (err: unknown) => log.error({ err }, 'consensus fault'));
    engine.on('rejected', (e: { block: Block; error: unknown; from?: Uint8Array }) => {
      const err = e.error as { code?: string; kind?: string; message?: string; data?: unknown };
      log.warn(
        { height: e.block.header.height, round: e.block.header.round, hash: toHex(e.block.hash), from: e.from && formatAddress(e.from), code: err.code, kind: err.kind, details: err.data },
        `block refused: ${err.message ?? String(e.error)}`,
      );
    });
    engine.on('halted', (report: HaltReport) => {
      log.fatal({ ...report }, 'consensus halted: this node\'s state disagrees with a quorum-certified chain, so it no longer votes, proposes or times out; see docs/consensus.md (a node that stops signing)');
    });

    const { maxConnections, maxConnectionsPerIp } = config.rpc;
    const http = new HttpServer({ host: config.rpc.host, port: config.rpc.port, maxBodyBytes: config.rpc.maxBodyBytes, connections: { maxConnections, maxConnectionsPerIp }, log });
    const rpc = createRpcServer({
      methods: createMethods({
        chainId: genesis.chainId,
        network: genesis.network,
        version: packageVersion(),
        startedAtMs: Date.now(),
        genesis,
        p2p: () => ({ peerId: network.peerId, addresses: network.listenAddrs() }),
        store,
        mempool,
        allowSubjectEnumeration: config.rpcAllowSubjectEnumeration,
        verifier,
        evidence: () => engine.evidence(),
        consensus: () => engine.status(),
        presentations,
        verificationBacklogBusy: config.verification.backlogBusy,
      }),
      maxBatch: config.rpc.maxBatch,
      maxBodyBytes: config.rpc.maxBodyBytes,
      maxInFlight: config.rpc.maxInFlight,
      maxBatchCost: config.rpc.maxBatchCost,
      maxEventLoopLagMs: config.rpc.maxEventLoopLagMs,
      retryAfterMs: config.rpc.retryAfterMs,
      onBusy: (reason) => metrics.rpcBusy.inc({ reason }),
      log,
    });
    closers.push(() => rpc.close());
    rpc.mount(http, '/');
    http.route('GET', RESOLVER_PATH, resolverRoute({ network: genesis.network, lookup: (id) => store.dids.get(id) }));
    http.route('GET', REVOCATION_LIST_PATH, async (ctx) => {
      const deps = {
        network: genesis.network,
        list: (issuer: Uint8Array, n: number) => store.credentials.revocationList(issuer, n),
        head: async () => {
          const block = await store.blocks.byHeight(store.head()?.height ?? 0);
          return { height: block?.header.height ?? 0, timestampMs: block?.header.timestampMs ?? 0 };
        },
      };
      const url = `http://${ctx.req.headers.host ?? 'localhost'}${ctx.path}`;
      const answer = await revocationListCredential(deps, ctx.params[0]!, ctx.params[1]!, url);
      if (answer.status === 200) ctx.json(200, answer.body);
      else ctx.problem(answer.status, answer.detail);
    });
    http.route('GET', '/metrics', async (ctx) => {
      ctx.send(200, await metrics.registry.metrics(), metrics.registry.contentType);
    });
    http.route('GET', '/health', (ctx) => {
      const halted = engine.haltReport;
      if (halted) ctx.json(503, { status: 'halted', seq: store.head()?.seq ?? 0, consensus: halted });
      else ctx.json(200, { status: 'ok', seq: store.head()?.seq ?? 0 });
    });

    await engine.start();
    closers.push(() => engine.stop());
    const bound = await http.listen();
    closers.push(() => http.close());
    const rpcUrl = `http://${bound.host.includes(':') ? `[${bound.host}]` : bound.host}:${bound.port}`;
    const headSignal = new HeadSignal();
    app.on('committed', () => headSignal.committed());
    const host = new PluginHost({ chainId: genesis.chainId, network: genesis.network, store, db, mempool, head: headSignal, metrics: metrics.registry, log, dataDir: config.dataDir, serviceKeySecret: options.serviceKeySecret });
    closers.push(() => host.stop());
    registerConnectionMetrics(metrics.registry, () => [{ name: 'rpc', http }, ...host.servers()]);
    const plugins = await host.start(options.plugins ?? [], config.plugins);
    log.info({ rpc_url: rpcUrl, p2p: network.listenAddrs(), validator: me ? formatAddress(selfAddress) : null, plugins }, 'node started');
    return { rpcUrl, p2pAddrs: network.listenAddrs(), plugins, close };
  } catch (err) {
    await close();
    throw err;
  }
}


/** The credential requests whose attestation window is still open: their deadlines lie after the head. */
async function pendingCredentialRequests(store: ChainStore): Promise<string[]> {
  const head = store.head()?.height ?? 0;
  const ids: string[] = [];
  for (let h = head + 1; h <= head + ATTESTATION_WINDOW; h++) {
    for (const task of await tasksAt(store.stateReader(), h)) {
      if (task.kind === SCHEDULED_KINDS.credentialDeadline) ids.push(formatCredentialId(task.id));
    }
  }
  return ids;
}
