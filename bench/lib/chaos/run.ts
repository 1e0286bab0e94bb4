import { RpcError, type RpcClient } from '../../../node/client/index.js';
import type { AccountKey } from '../../../node/config/keyfile.js';
import { ChaosCheckError, checkAccounts, checkReceipts, checkSameChain, type NodeRef } from './checks.js';
import type { LocalCluster } from './cluster.js';
import { describeNode } from './diagnose.js';
import { CommitGapMeter } from './gaps.js';
import { LoadGenerator } from './load.js';
import { NodeStartError } from './node-process.js';
import type { Rng } from './rng.js';
import type { ChaosOptions, CycleKind, CycleResult, RestartFigures } from './types.js';

/**
 * How long a restarted validator may take, from spawn, to get within a few blocks of the live
 * head. A node down 10 s under 40 tx/s misses about 100 blocks; starting takes 1-3 s and fetching
 * them a few more on a busy two-core machine. Much more than that is a node that is not catching
 * up at all, and a run should say so rather than wait.
 */
export const CATCH_UP_BOUND_MS = 30_000;
/** the first vote after catching up: a round or two, or a timeout's worth when the leader is the one restarted */
const VOTE_BOUND_MS = 15_000;
/** the load in flight confirmed once it is paused (transactions of a dead node are resent after 0.5 s) */
const DRAIN_BOUND_MS = 30_000;
/** a stall is judged from this long after a kill: what was certified before it may still commit */
const SETTLE_MS = 1_500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The state of one chaos run over a started, funded cluster: its load, and the cycles' steps. */
export class ChaosRun {
  readonly load: LoadGenerator;
  private readonly all: number[];
  private readonly generation: number[];
  /** restarted, not yet caught up: not asked for receipts */
  private readonly catching = new Set<number>();
  private readonly started = performance.now();
  private readonly catchUpMs: number;
  private nextReader = 0;
  private nextCrashPoint = 0;
  /** every seq up to this one was compared on every node */
  private verifiedTo = -1;
  /** landed transactions (in landing order) whose receipts were compared on every node */
  private verifiedLanded = 0;

  constructor(
    private readonly c: LocalCluster,
    private readonly rng: Rng,
    private readonly senders: AccountKey[],
    private readonly o: ChaosOptions,
  ) {
    this.all = c.nodes.map((n) => n.index);
    this.generation = this.all.map(() => 0);
    this.catchUpMs = o.catchUpMs ?? CATCH_UP_BOUND_MS;
    this.load = new LoadGenerator({
      chainId: c.chainId,
      senders,
      to: c.dev.address,
      rate: o.rate,
      targets: () => c.up().map((i) => ({ id: i, generation: this.generation[i]!, client: c.nodes[i]!.client })),
      reader: () => this.reader(),
    });
  }

  elapsedMs(): number {
    return performance.now() - this.started;
  }

  private reader(): RpcClient | undefined {
    const up = this.c.up();
    const healthy = up.filter((i) => !this.catching.has(i));
    const from = healthy.length > 0 ? healthy : up;
    return from.length > 0 ? this.c.nodes[from[this.nextReader++ % from.length]!]!.client : undefined;
  }

  private say(line: string): void {
    this.o.log?.(line);
  }

  private async seqs(which: number[]): Promise<number[]> {
    return Promise.all(which.map((i) => this.c.seq(i).catch(() => -1)));
  }

  /** One kill/restart cycle and the checks after it; a failed check is in `failure`. */
  async cycle(index: number, kind: CycleKind): Promise<CycleResult> {
    const [quietMin, quietMax] = this.o.quietMs ?? [1_000, 4_000];
    const [downMin, downMax] = this.o.downMs ?? [2_000, 10_000];
    await sleep(this.rng.int(quietMin, quietMax));
    let downMs = this.rng.int(downMin, downMax);
    if (kind === 'two' && this.all.length < 4) kind = 'one';
    const r: CycleResult = { index, kind, victims: [], at_ms: 0, seq_at_kill: 0, down_ms: 0, restarts: [], checked_blocks: 0, checked_receipts: 0 };
    let meter: CommitGapMeter | undefined;
    try {
      await this.assertAllUp();
      const leader = kind === 'leader' && this.all.length > 1 ? await this.currentLeader() : undefined;
      if (leader) {
        r.victims = [leader.node];
        r.leader_round = leader.round;
      } else r.victims = this.rng.sample(this.all, kind === 'two' ? 2 : 1);
      const live = this.all.filter((i) => !r.victims.includes(i));
      meter = kind !== 'two' && live.length > 0 ? new CommitGapMeter(this.c.nodes[live[0]!]!.client) : undefined;
      r.seq_at_kill = Math.max(...(await this.seqs(live.length > 0 ? live : r.victims)));
      r.at_ms = Math.round(this.elapsedMs());
      await Promise.all(r.victims.map((i) => this.c.kill9(i)));
      await meter?.start();
      const what = kind === 'leader' ? `node ${r.victims[0]} (leader of round ${r.leader_round})` : `node${r.victims.length > 1 ? 's' : ''} ${r.victims.join(' and ')}`;
      this.say(`cycle ${index} (${kind}): kill -9 ${what} at seq ${r.seq_at_kill}, down ${downMs} ms`);
      const downSince = performance.now();
      let floor = 0;
      if (kind === 'hook') await this.crashByHook(r, live);
      if (kind === 'two') {
        downMs = Math.max(downMs, SETTLE_MS + 2_500);
        await sleep(SETTLE_MS);
        const stalled = Math.max(...(await this.seqs(live)));
        await sleep(downMs - SETTLE_MS);
        const after = Math.max(...(await this.seqs(live)));
        r.stalled = after === stalled;
        if (!r.stalled) throw new ChaosCheckError('COMMITTED_WITHOUT_QUORUM', `with nodes ${r.victims.join(' and ')} down, the live nodes went from seq ${stalled} to ${after}`);
        floor = stalled + 1;
      } else await sleep(Math.max(0, downMs - (performance.now() - downSince)));
      r.down_ms = Math.round(performance.now() - downSince);
      if (meter) r.gaps = await meter.stop();
      const spawnedAt = performance.now();
      const restarts = Promise.all(r.victims.map((v) => this.restart(v, live, floor, r)));
      restarts.catch(() => undefined); // awaited below; it may fail while the resume is timed
      if (kind === 'two') r.resume_ms = await this.resumeAfter(spawnedAt, live, floor - 1);
      await restarts;
      this.say(`cycle ${index}: ${r.restarts.map((x) => `node ${x.node} missed ${x.missed_blocks} blocks, caught up in ${x.caught_up_ms} ms, votes after ${x.votes_ms} ms`).join('; ')}${r.gaps ? `; live commit gaps p50 ${r.gaps.p50_ms} / max ${r.gaps.max_ms} ms` : ''}${r.resume_ms !== undefined ? `; commits resumed ${r.resume_ms} ms after the restart` : ''}`);
      const checked = await this.quiesceAndCheck(r.victims);
      r.checked_blocks = checked.blocks;
      r.checked_receipts = checked.receipts;
    } catch (err) {
      if (!(err instanceof ChaosCheckError)) throw err;
      r.failure = { cycle: index, code: err.code, message: err.message };
      this.load.resume();
    } finally {
      await meter?.stop(); // a cycle that failed while the victim was down leaves it polling
    }
    return r;
  }

  private async assertAllUp(): Promise<void> {
    for (const i of this.all) if (!this.c.isUp(i)) throw new ChaosCheckError('NODE_DIED', `node ${i} died on its own\n${await describeNode(this.c, i)}`, i);
  }

  /**
   * The leader of the round a live node is in now: as ledger_getConsensusStatus names it, or, from
   * a node without that method, validators[round mod n] of the epoch (plain round-robin).
   */
  private async currentLeader(): Promise<{ node: number; round: number } | undefined> {
    const asked = this.c.nodes[this.all[0]!]!.client;
    let round: number;
    let address: string | null | undefined;
    try {
      ({ round, leader: address } = await asked.call<{ round: number; leader: string | null }>('ledger_getConsensusStatus'));
    } catch (err) {
      if (!(err instanceof RpcError) || err.code !== -32601) throw err;
      round = (await this.c.metric(this.all[0]!, 'ledger_round')) ?? 0;
      const epoch = await asked.getEpoch();
      address = epoch?.validators[round % epoch.validators.length]?.address;
    }
    const node = this.c.nodes.findIndex((n) => n.address === address);
    if (node >= 0) return { node, round };
    this.say(`cannot tell the leader of round ${round} (${address}) among the nodes: killing a random one`);
    return undefined;
  }

  /** Starts the victim with the next crash point's environment and waits for it to kill itself. */
  private async crashByHook(r: CycleResult, live: number[]): Promise<void> {
    const points = this.o.crashPoints ?? [];
    if (points.length === 0) throw new Error("a 'hook' cycle needs crashPoints");
    const point = points[this.nextCrashPoint++ % points.length]!;
    const v = r.victims[0]!;
    const head = live.length > 0 ? Math.max(...(await this.seqs(live))) : r.seq_at_kill;
    const env = point.env(head);
    r.crash_point = `${point.name} (${Object.entries(env).map(([k, x]) => `${k}=${x}`).join(' ')})`;
    this.say(`cycle ${r.index}: restart node ${v} with ${r.crash_point}`);
    this.generation[v]!++;
    let exit: { code: number | null; signal: NodeJS.Signals | null };
    try {
      const proc = await this.c.start(v, env);
      const timeout = sleep(this.catchUpMs).then(() => undefined);
      const ended = await Promise.race([proc.exited, timeout]);
      if (!ended) throw new ChaosCheckError('HOOK_DID_NOT_FIRE', `node ${v}, started with ${r.crash_point}, did not crash within ${this.catchUpMs} ms\n${await describeNode(this.c, v)}`, v);
      exit = ended;
    } catch (err) {
      if (!(err instanceof NodeStartError) || err.code !== 'NODE_EXITED') throw err;
      exit = { code: null, signal: err.signal }; // it crashed before it served RPC
    }
    if (exit.signal !== 'SIGKILL') throw new ChaosCheckError('NODE_DIED', `node ${v}, started with ${r.crash_point}, exited with ${exit.signal ?? exit.code}, not by its crash hook\n${await describeNode(this.c, v)}`, v);
  }

  /**
   * Restarts node v and times it: spawn to serving, to within `catchUpLag` blocks of the live head
   * (and at least `floor`), to its first vote. STUCK or NOT_VOTING past their bounds.
   */
  private async restart(v: number, live: number[], floor: number, r: CycleResult): Promise<RestartFigures> {
    this.catching.add(v);
    this.generation[v]!++;
    const lag = this.o.catchUpLag ?? 2;
    const before = await this.seqs(live);
    const proc = await this.c.start(v).catch(async (err: unknown) => {
      throw new ChaosCheckError('NODE_DIED', `node ${v} did not restart: ${(err as Error).message}`, v);
    });
    const t0 = proc.spawnedAt;
    const own = await this.c.seq(v).catch(() => 0);
    const missed = live.length > 0 ? Math.max(0, Math.max(...before) - r.seq_at_kill) : 0;
    const f: RestartFigures = { node: v, ready_ms: Math.round(proc.readyAt - t0), caught_up_ms: null, missed_blocks: missed, votes_ms: null };
    r.restarts.push(f);
    // Under load the live chain moves on, so a node that has caught up also commits past where it started.
    const target = (liveHead: number) => Math.max(floor, live.length > 0 ? Math.max(liveHead - lag, own + 1) : own + 3);
    for (;;) {
      const [mine, ...theirs] = await this.seqs([v, ...live]);
      if (mine! >= target(Math.max(...theirs))) break;
      if (!proc.alive()) throw new ChaosCheckError('NODE_DIED', `node ${v} died while catching up\n${await describeNode(this.c, v)}`, v);
      if (performance.now() - t0 > this.catchUpMs) {
        const seen = `node ${v} is at seq ${mine} ${this.catchUpMs} ms after its restart, where it was at ${own}${live.length > 0 ? `; ${live.map((i, k) => `node ${i} at ${theirs[k]}`).join(', ')}` : ''}`;
        throw new ChaosCheckError('STUCK', `${seen} (killed at seq ${r.seq_at_kill})\n${await describeNode(this.c, v)}`, v);
      }
      await sleep(50);
    }
    f.caught_up_ms = Math.round(performance.now() - t0);
    this.catching.delete(v);
    const metric = this.all.length === 1 ? 'ledger_consensus_proposals_total' : 'ledger_consensus_votes_sent_total';
    for (;;) {
      if (((await this.c.metric(v, metric).catch(() => 0)) ?? 0) > 0) break;
      if (performance.now() - t0 > f.caught_up_ms + VOTE_BOUND_MS) {
        const seqs = await this.seqs([v, ...live]);
        throw new ChaosCheckError('NOT_VOTING', `node ${v} caught up (seqs ${seqs.map((s, k) => `node ${[v, ...live][k]} ${s}`).join(', ')}) but ${metric} is still 0 ${VOTE_BOUND_MS} ms later\n${await describeNode(this.c, v)}`, v);
      }
      await sleep(100);
    }
    f.votes_ms = Math.round(performance.now() - t0);
    return f;
  }

  /** Two down and back: ms from the restart to the first live commit past `stalled`. */
  private async resumeAfter(spawnedAt: number, live: number[], stalled: number): Promise<number> {
    for (;;) {
      if (Math.max(...(await this.seqs(live))) > stalled) return Math.round(performance.now() - spawnedAt);
      if (performance.now() - spawnedAt > this.catchUpMs) {
        const views = await Promise.all(this.all.map((i) => describeNode(this.c, i, 5)));
        throw new ChaosCheckError('NO_RESUME', `no commit past seq ${stalled} within ${this.catchUpMs} ms of restarting the two nodes\n${views.join('\n')}`);
      }
      await sleep(20);
    }
  }

  private refs(which: number[]): NodeRef[] {
    return which.map((i) => ({ id: i, client: this.c.nodes[i]!.client }));
  }

  /**
   * Pauses the load, waits until every transaction sent is confirmed and every node holds its
   * block, then compares the new blocks and receipts on every node (all of them on `restarted`
   * against a node that stayed up) and the senders' accounts. Resumes the load.
   */
  private async quiesceAndCheck(restarted: number[]): Promise<{ blocks: number; receipts: number }> {
    this.load.pause();
    const left = await this.load.drain(DRAIN_BOUND_MS);
    if (left > 0) {
      const views = await Promise.all(this.all.map((i) => describeNode(this.c, i, 5)));
      throw new ChaosCheckError('NOT_DRAINED', `${left} transactions still without a receipt ${DRAIN_BOUND_MS} ms after the load paused\n${views.join('\n')}`);
    }
    const top = Math.max(0, ...[...this.load.landed.values()].map((l) => l.seq));
    await this.c.waitForSeq(this.all, top, DRAIN_BOUND_MS).catch(async (err: Error) => {
      throw new ChaosCheckError('STUCK', `${err.message}\n${(await Promise.all(this.all.map((i) => describeNode(this.c, i, 5)))).join('\n')}`);
    });
    const min = Math.min(...(await this.seqs(this.all)));
    let blocks = await checkSameChain(this.refs(this.all), this.verifiedTo + 1, min);
    const steady = this.all.filter((i) => !restarted.includes(i));
    if (steady.length > 0 && this.verifiedTo >= 0) blocks += await checkSameChain(this.refs([steady[0]!, ...restarted]), 0, this.verifiedTo);
    this.verifiedTo = Math.max(this.verifiedTo, min);
    const landed = [...this.load.landed];
    let receipts = await checkReceipts(this.refs(this.all), landed.slice(this.verifiedLanded));
    if (steady.length > 0) receipts += await checkReceipts(this.refs(restarted), landed.slice(0, this.verifiedLanded));
    this.verifiedLanded = landed.length;
    await checkAccounts(this.refs(this.all), this.senders, (i) => this.load.nonceOf(i));
    this.load.resume();
    return { blocks, receipts };
  }

  /** After a recoverable failure: kill -9 and restart every node that is down or behind; false when that does not help. */
  async recover(): Promise<boolean> {
    this.load.pause();
    try {
      const heads = await this.seqs(this.all);
      const top = Math.max(...heads);
      const bad = this.all.filter((i, k) => !this.c.isUp(i) || heads[k]! < top - 5);
      const live = this.all.filter((i) => !bad.includes(i));
      this.say(`recovering: restarting node(s) ${bad.join(', ')}`);
      const scratch: CycleResult = { index: -1, kind: 'one', victims: bad, at_ms: 0, seq_at_kill: top, down_ms: 0, restarts: [], checked_blocks: 0, checked_receipts: 0 };
      await Promise.all(bad.map((i) => this.c.kill9(i)));
      await Promise.all(bad.map((i) => this.restart(i, live, 0, scratch)));
      await this.quiesceAndCheck(bad);
      return true;
    } catch (err) {
      if (!(err instanceof ChaosCheckError)) throw err;
      this.say(`recovery failed (${err.code}): ${err.message}`);
      return false;
    }
  }

  /** The whole chain and every receipt compared on every node, with the load stopped and drained. */
  async finalCheck(): Promise<{ seq: number; checked_blocks: number; checked_receipts: number }> {
    this.load.pause();
    this.verifiedTo = -1;
    this.verifiedLanded = 0;
    const { blocks, receipts } = await this.quiesceAndCheck([]);
    this.load.pause();
    return { seq: Math.min(...(await this.seqs(this.all))), checked_blocks: blocks, checked_receipts: receipts };
  }
}
