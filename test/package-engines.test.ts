import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import t from 'tap';

/**
 * The Node.js versions package.json promises are the ones every locked package accepts: at the
 * lowest version of each range we name, `npm ci` must print no EBADENGINE warning (libp2p's
 * p-retry 8 wanted Node.js 22 while we said 20; it is pinned to 7 through `overrides`).
 */
const read = (path: string) => JSON.parse(readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8'));
const lock = read('../package-lock.json') as { packages: Record<string, { engines?: { node?: string }; optional?: boolean }> };
const manifests = { 'ledger-node': read('../package.json'), 'ledger-node-client': read('../packages/client/package.json') } as Record<string, { engines: { node: string } }>;

/** the lowest version of each part of a range: `^20.19.0 || >=22.12.0` gives 20.19.0 and 22.12.0 */
function lowestVersions(range: string): string[] {
  return new semver.Range(range).set.map((comparators) => semver.minVersion(comparators.map((c) => c.value).join(' '))!.version);
}

t.test('both packages promise the same Node.js versions, and this one is among them', async (t) => {
  t.equal(manifests['ledger-node-client']!.engines.node, manifests['ledger-node']!.engines.node);
  t.ok(semver.satisfies(process.versions.node, manifests['ledger-node']!.engines.node), `Node.js ${process.versions.node}`);
});

t.test('every locked package accepts the lowest Node.js of each promised range', async (t) => {
  const versions = lowestVersions(manifests['ledger-node']!.engines.node);
  t.same(versions, ['20.19.0', '22.12.0']);
  for (const version of versions) {
    const refusing = Object.entries(lock.packages)
      .filter(([, p]) => p.engines?.node !== undefined && !semver.satisfies(version, p.engines.node))
      .map(([path, p]) => `${path.replace(/^.*node_modules\//, '')} (${p.engines!.node})`);
    t.same(refusing, [], `Node.js ${version}`);
  }
});
