import { existsSync } from 'node:fs';
import { dataPaths } from '../config/datadir.js';
import { LedgerError } from '../errors.js';
import { openDatabase, type Database } from '../state/db.js';

/**
 * The node's database, for a command that works on it while the node is stopped: NO_DATA when
 * the data directory has none, DB_LOCKED while a running node holds it.
 */
export async function openStoppedDatabase(dataDir: string): Promise<Database> {
  const location = dataPaths(dataDir).chainDb;
  if (!existsSync(location)) throw new LedgerError('NO_DATA', `no chain database at ${location}`, 'not_found');
  try {
    return await openDatabase(location);
  } catch (err) {
    throw new LedgerError('DB_LOCKED', `cannot open ${location}: stop the node first (${(err as Error).message})`, 'conflict');
  }
}
