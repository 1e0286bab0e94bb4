import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../node/logging.js';

t.test('JSON lines at and above the level', async (t) => {
  const file = join(t.testdir({}), 'log.jsonl');
  const log = createLogger({ level: 'warn', name: 'test', destination: file });
  log.info('hidden');
  log.warn({ peer: 'p1' }, 'shown');
  log.error('also shown');
  log.flush();
  const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  t.same(lines.map((l) => l.msg), ['shown', 'also shown']);
  t.equal(lines[0].name, 'test');
  t.equal(lines[0].peer, 'p1');
  t.equal(lines[0].level, 40);
});

t.test('silent logs nothing; unknown levels are refused', async (t) => {
  const file = join(t.testdir({}), 'log.jsonl');
  const log = createLogger({ level: 'silent', destination: file });
  log.fatal('nothing');
  log.flush();
  t.equal(readFileSync(file, 'utf8'), '');
  t.throws(() => createLogger({ level: 'loud' as never }), /unknown log level "loud"/);
});

t.test('time is ISO 8601 UTC', async (t) => {
  const file = join(t.testdir({}), 'log.jsonl');
  const before = Date.now();
  const log = createLogger({ level: 'info', destination: file });
  log.info('stamped');
  log.flush();
  const { time } = JSON.parse(readFileSync(file, 'utf8').trim());
  t.match(time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.ok(Date.parse(time) >= before - 1 && Date.parse(time) <= Date.now() + 1);
});
