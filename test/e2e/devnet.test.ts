import t from 'tap';
import { spawn } from 'node:child_process';
import { RpcClient } from '../../node/client/index.js';
import { freePortRange } from '../../node/devnet/ports.js';
import { LEDGER_BIN, tempDataDir } from './harness.js';

t.test('ledger devnet runs four validators that commit, and Ctrl-C stops them all', async (t) => {
  const dir = await tempDataDir(t);
  const rpc = await freePortRange(4);
  const p2p = await freePortRange(4);
  const proc = spawn(process.execPath, [LEDGER_BIN, 'devnet', '--validators', '4', '--dir', dir, '--rpc-port', String(rpc), '--p2p-port', String(p2p), '--json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const lines: Array<Record<string, unknown>> = [];
  let pids: number[] = [];
  t.teardown(() => {
    proc.kill('SIGKILL');
    for (const pid of pids) alive(pid) && process.kill(pid, 'SIGKILL');
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`devnet not ready in 60 s:\n${stderr}`)), 60_000);
    let buf = '';
    proc.stdout.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(buf.slice(0, i)) as Record<string, unknown>);
        buf = buf.slice(i + 1);
        if (lines.at(-1)!.ready === true) {
          clearTimeout(timer);
          resolve();
        }
      }
    });
    proc.on('exit', () => reject(new Error(`devnet exited early:\n${stderr}`)));
  });
  const nodes = lines.filter((l) => typeof l.index === 'number');
  t.equal(nodes.length, 4);
  t.same(nodes.map((n) => n.rpc_url), [0, 1, 2, 3].map((i) => `http://127.0.0.1:${rpc + i}`), 'RPC ports offset per node');
  pids = nodes.map((n) => n.pid as number);
  const clients = nodes.map((n) => new RpcClient(n.rpc_url as string));
  const end = Date.now() + 60_000;
  while ((await Promise.all(clients.map(async (c) => (await c.canonHead())?.seq ?? 0))).some((s) => s < 3)) {
    if (Date.now() > end) t.fail('the devnet did not reach seq 3 on every node in 60 s');
    await new Promise((r) => setTimeout(r, 250));
  }
  const hashes = await Promise.all(clients.map(async (c) => (await c.getBlockBySeq(3))?.hash));
  t.equal(new Set(hashes).size, 1, 'all four agree on block seq 3');
  proc.kill('SIGINT');
  t.equal(await exited, 0, 'Ctrl-C: exit 0');
  t.same(pids.filter(alive), [], 'no node process left');
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
