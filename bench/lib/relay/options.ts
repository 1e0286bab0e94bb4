import { parseArgs } from 'node:util';
import { RELAY_EVENTS, type RelayEvent } from '../../../plugins/relay/core/event-types.js';

/** bench/relay's command line, checked (a UsageError names the bad flag). */

export interface RelayBenchOptions {
  /** timed forwards per run */
  messages: number;
  /** POSTs in flight */
  concurrency: number;
  /** offered forwards per second (open loop); 0: as fast as `concurrency` allows */
  rate: number;
  /** plugins.relay.cryptoThreads (0: crypto on the event loop); undefined: the relay's default */
  threads: number | undefined;
  /** untimed forwards first (JIT, caches, LevelDB) */
  warmup: number;
  /** timed runs on the same node; the table gives each and their median */
  runs: number;
  /** anoncrypt forwards (no sender, nothing to rate-limit) or authcrypt from the sender's did:peer:2 */
  sender: 'anoncrypt' | 'authcrypt';
  /** bytes of padding in each inner plaintext */
  size: number;
  /** the recipient acknowledges every this many messages (and every --ack-ms) */
  ackBatch: number;
  ackMs: number;
  /** write a V8 CPU profile of the node (--cpu-prof) into this directory and summarize it */
  profile: string | undefined;
  /** more flags for the node process, e.g. --perf-basic-prof for `perf record -p <pid>` */
  nodeArgs: string[];
  /** where the relay keeps its records: the node's LevelDB, or Postgres with Redis (a throwaway server of each) */
  backend: 'leveldb' | 'postgres';
  /** relay processes: 1, or 2 (the second a node that follows the first); forwards go to the last, the recipient listens on the first */
  instances: 1 | 2;
  /** the wire tenant's webhook subscribes to these events (a local receiver answers 204); undefined: no webhook */
  webhook: RelayEvent[] | undefined;
  /** result JSON; default bench/results/relay-<t>t[-<rate>].json (relay-default… without --threads) */
  json: string | undefined;
  keepDir: boolean;
  help: boolean;
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const RELAY_BENCH_USAGE = `bench/relay: a DIDComm mediator's forward throughput and forward -> live delivery latency

  npm run bench:relay -- [--messages 10000] [--concurrency 20] [--rate 0] [--threads <cryptoThreads>]
                         [--warmup 1000] [--runs 1] [--sender anoncrypt|authcrypt] [--size 64]
                         [--ack-batch 100] [--ack-ms 50] [--backend leveldb|postgres] [--instances 1|2]
                         [--webhook <events>] [--profile <dir>] [--json <file>] [--keep-dir]

  --messages <n>     timed forwards per run (default 10000)
  --concurrency <c>  POST /didcomm requests in flight (default 20)
  --rate <r>         offer r forwards a second (open loop, still at most c in flight); default 0:
                     as fast as the c requests in flight go (closed loop, the relay's peak)
  --threads <t>      plugins.relay.cryptoThreads, 0-16 (default: the relay's own default)
  --warmup <n>       untimed forwards before the first run (default 1000)
  --runs <r>         timed runs on the same node; the median is reported too (default 1)
  --sender <kind>    anoncrypt forwards (default) or authcrypt from the sender's did:peer:2
  --size <bytes>     padding in each inner plaintext (default 64)
  --ack-batch <n>    the recipient sends messages-received every n messages ... (default 100)
  --ack-ms <ms>      ... or every ms milliseconds, whichever comes first (default 50)
  --backend <b>      leveldb (default): the node's own store; postgres: records in a throwaway
                     Postgres (fsync on) and coordination in a throwaway Redis
  --instances <n>    1 (default), or 2 relay processes on one Postgres and one Redis (implies
                     --backend postgres): the second follows the first's chain (ledger start
                     --follow); forwards are posted to the second, the recipient is live on the
                     first, so every delivery crosses Redis
  --webhook <events> give the wire's tenant a webhook to a local receiver (answers 204) for these
                     events: comma-separated names, or all; message.queued queues one delivery
                     per forward (LevelDB backend only)
  --profile <dir>    run the node under --cpu-prof, write the profiles there and print the top
                     functions by self time
  --node-arg <flag>  a flag for the node process (repeatable), e.g. --node-arg=--perf-basic-prof
                     to read JIT frames in \`perf record -p <pid>\`
  --json <file>      result JSON (default bench/results/relay-<t>t.json, relay-<t>t-<rate>.json
                     with --rate; relay-default… without --threads)
  --keep-dir         keep the node's data dir (node.log) instead of deleting it`;

function int(values: Record<string, unknown>, name: string, min: number, max: number): number {
  const text = values[name] as string;
  if (!/^\d+$/.test(text)) throw new UsageError(`--${name} must be a whole number, got ${JSON.stringify(text)}`);
  const n = Number(text);
  if (n < min || n > max) throw new UsageError(`--${name} must be from ${min} to ${max}, got ${n}`);
  return n;
}

export function parseRelayBenchArgs(argv: string[]): RelayBenchOptions {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        messages: { type: 'string', default: '10000' },
        concurrency: { type: 'string', default: '20' },
        rate: { type: 'string', default: '0' },
        threads: { type: 'string' },
        warmup: { type: 'string', default: '1000' },
        runs: { type: 'string', default: '1' },
        sender: { type: 'string', default: 'anoncrypt' },
        size: { type: 'string', default: '64' },
        'ack-batch': { type: 'string', default: '100' },
        'ack-ms': { type: 'string', default: '50' },
        profile: { type: 'string' },
        'node-arg': { type: 'string', multiple: true, default: [] },
        json: { type: 'string' },
        backend: { type: 'string' },
        instances: { type: 'string', default: '1' },
        webhook: { type: 'string' },
        'keep-dir': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const sender = values.sender as string;
  if (sender !== 'anoncrypt' && sender !== 'authcrypt') throw new UsageError(`--sender must be anoncrypt or authcrypt, got ${JSON.stringify(sender)}`);
  const instances = int(values, 'instances', 1, 2) as 1 | 2;
  const backend = (values.backend as string | undefined) ?? (instances === 2 ? 'postgres' : 'leveldb');
  if (backend !== 'leveldb' && backend !== 'postgres') throw new UsageError(`--backend must be leveldb or postgres, got ${JSON.stringify(backend)}`);
  if (instances === 2 && backend !== 'postgres') throw new UsageError('--instances 2 needs --backend postgres: two relays share their records in Postgres');
  const webhook = values.webhook === undefined ? undefined : webhookEvents(values.webhook as string);
  // the bench writes the webhook's configuration into the node's LevelDB
  if (webhook && backend !== 'leveldb') throw new UsageError('--webhook needs --backend leveldb');
  return {
    messages: int(values, 'messages', 1, 10_000_000),
    concurrency: int(values, 'concurrency', 1, 1000),
    rate: int(values, 'rate', 0, 1_000_000),
    threads: values.threads === undefined ? undefined : int(values, 'threads', 0, 16),
    warmup: int(values, 'warmup', 0, 10_000_000),
    runs: int(values, 'runs', 1, 100),
    sender,
    size: int(values, 'size', 0, 100_000),
    ackBatch: int(values, 'ack-batch', 1, 1000),
    ackMs: int(values, 'ack-ms', 1, 60_000),
    profile: values.profile as string | undefined,
    nodeArgs: values['node-arg'] as string[],
    backend,
    instances,
    webhook,
    json: values.json as string | undefined,
    keepDir: values['keep-dir'] as boolean,
    help: values.help as boolean,
  };
}

function webhookEvents(text: string): RelayEvent[] {
  if (text === 'all') return [...RELAY_EVENTS];
  const names = text.split(',').map((e) => e.trim());
  for (const e of names) if (!(RELAY_EVENTS as readonly string[]).includes(e)) throw new UsageError(`--webhook takes all or event names from ${RELAY_EVENTS.join(', ')}; got ${JSON.stringify(e)}`);
  return RELAY_EVENTS.filter((e) => names.includes(e));
}
