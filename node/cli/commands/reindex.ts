import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { openStoppedDatabase } from '../offline-db.js';
import { parseCommandArgs, printJson, stringFlag, UsageError, type CliIo } from '../io.js';

export const reindexHelp = `ledger reindex: drop a plugin's data so it rebuilds from the chain

Usage: ledger reindex <plugin> [--data-dir <dir>]

Deletes every key in the plugin's own namespace (for the explorer: its index and cursor) and
the plugin's own folder, <data-dir>/plugins/<plugin> (the explorer's PGlite index). The next
"ledger start" with the plugin on rebuilds it from block seq 0. An index on a Postgres server
is not touched: drop its schema there (docs/explorer.md). The chain itself is not
touched. Run it while the node is stopped: the node holds the database lock.

Options:
  --data-dir <dir>   data directory (default: $LEDGER_DATA_DIR or ./data)

Example:
  ledger reindex explorer --data-dir ./data`;

export async function runReindex(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name.startsWith('-')) throw new UsageError('reindex needs a plugin name, such as explorer', 'reindex');
  // the name becomes a folder's name: only a plugin name's characters, never a path
  if (!/^[a-z0-9_-]{1,64}$/.test(name)) throw new UsageError(`not a plugin name: ${JSON.stringify(name.slice(0, 64))} (1-64 of a-z, 0-9, _ and -)`, 'reindex');
  const p = parseCommandArgs('reindex', rest, { 'data-dir': { type: 'string' } });
  const dataDir = resolve(io.cwd, stringFlag(p, 'data-dir') ?? (io.env.LEDGER_DATA_DIR || './data'));
  const db = await openStoppedDatabase(dataDir);
  try {
    const store = db.pluginStore(name);
    let keys = 0;
    for await (const _ of store.keys()) keys++;
    await store.clear();
    const folder = join(dataDir, 'plugins', name);
    const hadFolder = existsSync(folder);
    await rm(folder, { recursive: true, force: true });
    printJson(io, { plugin: name, deleted_keys: keys, deleted_folder: hadFolder ? folder : null, data_dir: dataDir });
  } finally {
    await db.close();
  }
  return 0;
}
