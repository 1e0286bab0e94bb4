import t from 'tap';
import { parseRelayBenchArgs } from '../../bench/lib/relay/options.js';

t.test('bench/relay: defaults and flags', async (t) => {
  const d = parseRelayBenchArgs([]);
  t.match(d, { messages: 10_000, concurrency: 20, rate: 0, threads: undefined, warmup: 1000, runs: 1, sender: 'anoncrypt', size: 64, ackBatch: 100, ackMs: 50, profile: undefined, json: undefined, keepDir: false, help: false, backend: 'leveldb', instances: 1 });
  const o = parseRelayBenchArgs(['--messages', '500', '--concurrency', '8', '--threads', '2', '--runs', '3', '--sender', 'authcrypt', '--json', '/tmp/r.json', '--profile', '/tmp/p']);
  t.match(o, { messages: 500, concurrency: 8, threads: 2, runs: 3, sender: 'authcrypt', json: '/tmp/r.json', profile: '/tmp/p' });
  t.equal(parseRelayBenchArgs(['--threads', '0']).threads, 0, 'crypto on the event loop');
  t.match(parseRelayBenchArgs(['--instances', '2']), { instances: 2, backend: 'postgres' }, 'two instances share Postgres');
  t.match(parseRelayBenchArgs(['--backend', 'postgres']), { instances: 1, backend: 'postgres' });
  t.equal(d.webhook, undefined, 'no webhook unless asked');
  t.same(parseRelayBenchArgs(['--webhook', 'message.delivered,message.queued']).webhook, ['message.queued', 'message.delivered'], 'in the relay\'s order');
  t.equal(parseRelayBenchArgs(['--webhook', 'all']).webhook?.length, 7);
});

t.test('bench/relay: bad flags are usage errors', async (t) => {
  for (const argv of [['--messages', '0'], ['--messages', '1e3'], ['--concurrency', '-1'], ['--threads', '17'], ['--sender', 'plain'], ['--nope'], ['--instances', '3'], ['--backend', 'mysql'], ['--instances', '2', '--backend', 'leveldb'], ['--webhook', 'message.sent'], ['--webhook', 'all', '--backend', 'postgres']]) {
    t.throws(() => parseRelayBenchArgs(argv), { name: 'UsageError' }, argv.join(' '));
  }
});
