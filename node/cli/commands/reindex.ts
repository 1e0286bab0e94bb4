import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { dataPaths } from '../../config/datadir.js';
import { LedgerError } from '../../errors.js';
import { openDatabase } from '../../state/db.js';
import { parseCommandArgs, printJson, stringFlag, UsageError, type CliIo } from '../io.js';

export const reindexHelp = `ledger reindex: drop a plugin's data so it rebuilds from the chain

Usage: ledger reindex <plugin> [--data-dir <dir>]

Deletes every key in the plugin's own namespace (for the explorer: its index and cursor). The
next "ledger start" with the plugin on rebuilds it from block seq 0. The chain itself is not
touched. Run it while the node is stopped: the node holds the database lock.

Options:
  --data-dir <dir>   data directory (default: $LEDGER_DATA_DIR or ./data)

Example:
  ledger reindex explorer --data-dir ./data`;

export async function runReindex(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name.startsWith('-')) throw new UsageError('reindex needs a plugin name, such as explorer', 'reindex');
  const p = parseCommandArgs('reindex', rest, { 'data-dir': { type: 'string' } });
  const dataDir = resolve(io.cwd, stringFlag(p, 'data-dir') ?? (io.env.LEDGER_DATA_DIR || './data'));
  const location = dataPaths(dataDir).chainDb;
  if (!existsSync(location)) throw new LedgerError('NO_DATA', `no chain database at ${location}`, 'not_found');
  let db;
  try {
    db = await openDatabase(location);
  } catch (err) {
    throw new LedgerError('DB_LOCKED', `cannot open ${location}: stop the node first (${(err as Error).message})`, 'conflict');
  }
  try {
    const store = db.pluginStore(name);
    let keys = 0;
    for await (const _ of store.keys()) keys++;
    await store.clear();
    printJson(io, { plugin: name, deleted_keys: keys, data_dir: dataDir });
  } finally {
    await db.close();
  }
  return 0;
}
