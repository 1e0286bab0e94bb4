import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LedgerError } from '../errors.js';

/** This package's root, found from this module in both node/ (source) and dist/node/ (build). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'genesis'))) return dir;
    dir = dirname(dir);
  }
  throw new LedgerError('NO_PACKAGE_ROOT', 'cannot find the ledger package root (package.json next to genesis/)', 'internal');
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
