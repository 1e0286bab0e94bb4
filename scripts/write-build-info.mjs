// Records what `npm run build` built, for the wallet's /v1/health `build`: dist/build-info.json
// = {commit, builtAt}. The commit is `git rev-parse HEAD` of this checkout; without git or a
// repository (a Docker build context has no .git) it is LEDGER_BUILD_COMMIT, else "unknown".
// A missing git never fails the build. Usage: node scripts/write-build-info.mjs [output file]
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const out = process.argv[2] ?? join(root, 'dist', 'build-info.json');

function gitCommit() {
  try {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).trim();
    return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(head) ? head : undefined;
  } catch {
    return undefined;
  }
}

function envCommit() {
  const value = (process.env.LEDGER_BUILD_COMMIT ?? '').trim();
  return /^[\w.-]{1,100}$/.test(value) ? value : undefined;
}

const info = { commit: gitCommit() ?? envCommit() ?? 'unknown', builtAt: new Date().toISOString() };
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(info, null, 2)}\n`);
console.log(`build info: commit ${info.commit}, built ${info.builtAt}`);
