import { parseArgs } from 'node:util';

/** bench/verification's command line, checked (a UsageError names the bad flag). */

export interface VerificationBenchOptions {
  /** requests a second, one run; ignored when `sweep` is given */
  rate: number;
  /** the rates of a sweep, one run each on the same devnet; undefined: one run at `rate` */
  sweep: number[] | undefined;
  /** seconds of requests per run */
  duration: number;
  /** seconds of load at the first rate before anything is measured (0: none) */
  warmup: number;
  /** after the last request of a run is sent, seconds to wait for the outstanding responses */
  drain: number;
  /** subjects, each with one registered KYC level-2 credential; requests go round-robin over them */
  subjects: number;
  /** requester (dApp) accounts; requests go round-robin over them, each with consecutive nonces */
  dapps: number;
  /** the requests' validForBlocks; undefined: the chain's default (300 blocks) */
  validForBlocks: number | undefined;
  /**
   * when the subject presents: `submit`, as soon as the dApp's submit is answered (the dApp hands
   * its request to the wallet as it sends it); `commit`, once node 0 has committed the request
   */
  present: 'submit' | 'commit';
  /** kill -9 this validator (1 to 3) this many seconds into each measured run, and start it again `down` seconds later */
  kill: { node: number; atS: number } | undefined;
  down: number;
  /** run every validator with --cpu-prof into this dir and print where the CPU of the (last) run went */
  profile: string | undefined;
  /** result JSON; default bench/results/verification.json */
  out: string | undefined;
  keepDir: boolean;
  help: boolean;
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The rates `--sweep` takes alone. */
export const DEFAULT_SWEEP_RATES = [1, 2, 4];

export const VERIFICATION_BENCH_USAGE = `bench/verification: verification requests on a 4-validator devnet, from submit to final response

  npm run bench:verification -- [--rate 5] [--duration 30] [--warmup 10] [--drain 60]
                                [--subjects 20] [--dapps 4] [--valid-for-blocks <n>]
                                [--sweep [1,2,4]] [--present submit|commit] [--profile <dir>]
                                [--kill <node>@<s>] [--down 5] [--out <file>] [--keep-dir]

  --rate <r>         requests a second, open loop (default 5)
  --duration <s>     seconds of requests per run (default 30)
  --warmup <s>       seconds of the same load at the first rate before anything is measured
                     (default 10; 0 = none): cold V8 code and the nodes' proof workers starting up
                     are not what a steady rate costs
  --drain <s>        after the last request of a run, wait up to this long for the responses still
                     outstanding (default 60); what is not final by then is counted, not timed
  --subjects <n>     subjects with a registered KYC level-2 credential (BBS, 12 messages); the
                     requests go round-robin over them (default 20)
  --dapps <n>        requester accounts, round-robin, each with consecutive nonces, each sending to one node (default 4)
  --valid-for-blocks <n>  the requests' deadline (default: the chain's, 300 blocks)
  --sweep [rates]    one run per rate on the same devnet (alone: ${DEFAULT_SWEEP_RATES.join(',')})
  --present <when>   submit (default): the subject presents as soon as the dApp's submit is
                     answered, as a wallet does that the dApp hands its request to; the node waits
                     for the request to reach a block. commit: once node 0 has committed the request
  --kill <node>@<s>  kill -9 validator <node> (1 to 3; node 0 hosts the commit watcher) <s>
                     seconds into each measured run, and start it again --down seconds later
                     (default 5): the dApps and wallets whose node is down go to the next one, and
                     a request not committed 5 s after it was taken is sent again. The validators'
                     CPU is not reported for such a run
  --profile <dir>    run every validator with --cpu-prof into <dir>; prints where the validators'
                     CPU went over the window of the last run, per final response
  --out <file>       result JSON (default bench/results/verification.json)
  --keep-dir         keep the devnet dir (node logs) instead of deleting it

Each request's BBS presentation is derived before the clock starts (its requestId is chosen ahead,
and the presentation header binds chainId, requestId and holder), so the bench spends no proof
work while it measures.`;

function positive(value: string, flag: string, o: { integer?: boolean; zero?: boolean } = {}): number {
  const n = Number(value);
  const ok = value.trim() !== '' && Number.isFinite(n) && (o.zero ? n >= 0 : n > 0) && (!o.integer || Number.isInteger(n));
  if (!ok) throw new UsageError(`--${flag} must be a ${o.integer ? 'whole ' : ''}number ${o.zero ? '≥ 0' : '> 0'}, got ${JSON.stringify(value)}`);
  return n;
}

/** A comma-separated list of rates (requests a second, fractions allowed), ascending as given. */
export function parseRateList(list: string): number[] {
  const rates = list.split(',').map((s) => s.trim());
  if (rates.length === 0 || rates.some((r) => r === '')) throw new UsageError(`--sweep takes rates separated by commas, got ${JSON.stringify(list)}`);
  return rates.map((r) => positive(r, 'sweep'));
}

export function parseVerificationBenchArgs(argv: string[]): VerificationBenchOptions {
  // `--sweep` may stand alone (the default rates) or take a list
  const args = argv.map((a, i) => (a === '--sweep' && (argv[i + 1] === undefined || argv[i + 1]!.startsWith('-')) ? `--sweep=${DEFAULT_SWEEP_RATES.join(',')}` : a));
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        rate: { type: 'string', default: '5' },
        duration: { type: 'string', default: '30' },
        warmup: { type: 'string', default: '10' },
        drain: { type: 'string', default: '60' },
        subjects: { type: 'string', default: '20' },
        dapps: { type: 'string', default: '4' },
        'valid-for-blocks': { type: 'string' },
        sweep: { type: 'string' },
        present: { type: 'string', default: 'submit' },
        kill: { type: 'string' },
        down: { type: 'string', default: '5' },
        profile: { type: 'string' },
        out: { type: 'string' },
        'keep-dir': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const validFor = values['valid-for-blocks'];
  const validForBlocks = validFor === undefined ? undefined : positive(validFor, 'valid-for-blocks', { integer: true });
  if (validForBlocks !== undefined && (validForBlocks < 5 || validForBlocks > 10_000)) throw new UsageError('--valid-for-blocks must be from 5 to 10000 (the protocol bounds)');
  const present = values.present!;
  if (present !== 'submit' && present !== 'commit') throw new UsageError(`--present must be submit or commit, got ${JSON.stringify(present)}`);
  let kill: VerificationBenchOptions['kill'];
  if (values.kill !== undefined) {
    const m = /^([1-3])@(\d+(?:\.\d+)?)$/.exec(values.kill);
    if (!m) throw new UsageError(`--kill takes <node>@<seconds>, node 1 to 3, got ${JSON.stringify(values.kill)}`);
    kill = { node: Number(m[1]), atS: Number(m[2]) };
  }
  return {
    rate: positive(values.rate!, 'rate'),
    sweep: values.sweep === undefined ? undefined : parseRateList(values.sweep),
    duration: positive(values.duration!, 'duration'),
    warmup: positive(values.warmup!, 'warmup', { zero: true }),
    drain: positive(values.drain!, 'drain', { zero: true }),
    subjects: positive(values.subjects!, 'subjects', { integer: true }),
    dapps: positive(values.dapps!, 'dapps', { integer: true }),
    validForBlocks,
    present,
    kill,
    down: positive(values.down!, 'down', { zero: true }),
    profile: values.profile,
    out: values.out,
    keepDir: values['keep-dir']!,
    help: values.help!,
  };
}

/** The runs in order: the rate of each, how many requests it sends, and whether it is measured. */
export function plannedRuns(o: Pick<VerificationBenchOptions, 'rate' | 'sweep' | 'duration' | 'warmup'>): Array<{ rate: number; requests: number; warmup: boolean }> {
  const rates = o.sweep ?? [o.rate];
  const runs = rates.map((rate) => ({ rate, requests: Math.max(1, Math.round(rate * o.duration)), warmup: false }));
  return o.warmup > 0 ? [{ rate: rates[0]!, requests: Math.max(1, Math.round(rates[0]! * o.warmup)), warmup: true }, ...runs] : runs;
}
