import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t, { type Test } from 'tap';
import { bytesEqual, toHex } from '../../node/protocol/bytes.js';
import { accountKey } from '../../node/protocol/records.js';
import { transactionHash } from '../../node/protocol/transaction.js';
import { ChainStore } from '../../node/state/chain-store.js';
import { openDatabase, type BinaryLevel } from '../../node/state/db.js';
import { EMPTY_ROOT, getValueHash, updateTree } from '../../node/state/tree/index.js';
import { COUNTER, CRASH, genesis } from '../fixtures/chain-blocks.js';

/**
 * A real process commits blocks into an on-disk LevelDB and is killed with SIGKILL at a random
 * moment, several times over the same directory. After each kill the store must hold exactly the
 * chain up to its head: nothing half-written, nothing that was reported committed lost.
 */

const LOADER = fileURLToPath(new URL('../../node_modules/@isaacs/ts-node-temp-fork-for-pr-2009/import.mjs', import.meta.url));
const WRITER = fileURLToPath(new URL('../fixtures/state-crash-writer.ts', import.meta.url));
/** each round costs about 2.5 s, mostly the child transpiling TypeScript at startup */
const ROUNDS = 4;

async function count(db: BinaryLevel): Promise<number> {
  let n = 0;
  for await (const _ of db.keys()) n++;
  return n;
}

/** Runs the writer until it has committed at least once, then kills it at a random moment. */
async function runAndKill(dir: string): Promise<{ lastCommitted: number; signal: NodeJS.Signals | null }> {
  const child = spawn(process.execPath, ['--import', pathToFileURL(LOADER).href, WRITER, dir], {
    // Without the test runner's own process hooks (NODE_OPTIONS): the child is a plain node process.
    env: { ...process.env, NODE_OPTIONS: '', TS_NODE_TRANSPILE_ONLY: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let lastCommitted = -1;
  let killTimer: NodeJS.Timeout | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const m = /^committed (\d+)$/.exec(line);
    if (!m) return;
    lastCommitted = Math.max(lastCommitted, Number(m[1]));
    killTimer ??= setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 300));
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), 15_000);
  // 'close' comes after stdout has ended, so every line printed before the kill has been read.
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, sig) => resolve(sig)));
  clearTimeout(guard);
  if (killTimer === undefined || signal !== 'SIGKILL') throw new Error(`the writer did not commit and die by SIGKILL as planned: ${stderr}`);
  return { lastCommitted, signal };
}

async function verify(t: Test, dir: string, lastCommitted: number): Promise<number> {
  const db = await openDatabase(dir);
  try {
    const store = await ChainStore.open(db, { chainId: CRASH.chainId });
    const head = store.head();
    if (!head) throw new Error('no head after a crash');
    t.ok(head.seq >= lastCommitted, `head ${head.seq} keeps every reported commit (last ${lastCommitted})`);

    // Every index holds exactly seq 0..head.seq: no half-written block past the head.
    t.equal(await count(db.seq), head.seq + 1, 'seq index');
    t.equal(await count(db.height), head.seq + 1, 'height index');
    t.equal(await count(db.blocks), head.seq + 1, 'blocks');
    t.equal(await count(db.receipts), head.seq * CRASH.txs, 'receipts');
    t.equal(await count(db.txIndex), head.seq * CRASH.txs, 'tx index');

    const block = await store.blocks.bySeq(head.seq);
    t.ok(block && bytesEqual(block.hash, head.hash) && bytesEqual(block.header.stateRoot, head.stateRoot), 'the head block is stored');
    let hash = head.hash;
    for (let seq = head.seq; seq > 0; seq--) {
      const b = (await store.blocks.byHash(hash))!;
      if (!bytesEqual((await store.blocks.hashBySeq(seq))!, hash)) throw new Error(`seq ${seq} does not chain`);
      hash = b.header.parentHash;
    }
    t.ok(bytesEqual(hash, store.genesisHash!), 'the chain links back to genesis');
    for (const tx of block!.transactions) {
      const r = await store.receipts.byTxHash(transactionHash(CRASH.chainId, tx));
      t.equal(r?.block_seq, head.seq, 'head receipt');
    }

    // State is exactly the state after head.seq blocks, and the tree commits to it.
    t.equal((await store.accounts.get(COUNTER)).balance, BigInt(head.seq), 'counter == seq');
    const g = await genesis();
    const entries: Array<{ key: Uint8Array; value: Uint8Array }> = [];
    for await (const [key, value] of db.state.iterator()) entries.push({ key, value });
    t.equal(entries.length, g.changes.length + head.seq * CRASH.fillers, 'state entry count');
    const rebuilt = await updateTree({ getNode: async () => undefined }, EMPTY_ROOT, entries);
    t.equal(toHex(rebuilt.root), toHex(head.stateRoot), 'state root over the stored entries');
    t.ok(await getValueHash(store.treeNodes(), head.stateRoot, accountKey(COUNTER)), 'tree nodes of the head are stored');
    return head.seq;
  } finally {
    await db.close();
  }
}

t.test('SIGKILL at a random moment leaves the old head or the new one, never a half block', async (t) => {
  t.ok(existsSync(LOADER), 'TypeScript loader for the child process');
  const dir = await mkdtemp(join(tmpdir(), 'ledger-crash-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  let previous = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const { lastCommitted, signal } = await runAndKill(dir);
    t.equal(signal, 'SIGKILL', `round ${round}: killed`);
    const seq = await verify(t, dir, lastCommitted);
    t.ok(seq > previous, `round ${round}: resumed from seq ${previous} and reached ${seq}`);
    previous = seq;
  }
});
