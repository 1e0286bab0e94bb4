import t from 'tap';
import { deflateSync, gzipSync } from 'node:zlib';
import { REVOCATION_LIST_BYTES, REVOCATION_LIST_ENTRIES, RevocationList } from '../../node/protocol/revocation-list.js';
import { loadVectors } from '../fixtures/vectors.js';

const V = loadVectors('revocation-list-2020.json');

t.test('the StatusList2021 all-zero example decodes to an empty 16 KiB list', async (t) => {
  const list = RevocationList.fromEncodedList(V.spec_examples.StatusList2021.encodedList);
  t.equal(list.count(), 0);
  t.equal(list.toBytes().length, REVOCATION_LIST_BYTES);
});

t.test('the RevocationList2020 example is below the 16 KiB minimum and is refused', async (t) => {
  t.throws(() => RevocationList.fromEncodedList(V.spec_examples.RevocationList2020.encodedList), { code: 'BAD_REVOCATION_LIST', message: /16384 bytes, got 12500/ });
});

for (const v of V.derived_vectors as Array<{ setIndexes: number[]; nonZeroBytes: Record<string, string>; encodedList: string }>) {
  t.test(`bit order: indexes ${v.setIndexes.join(', ')}`, async (t) => {
    const decoded = RevocationList.fromEncodedList(v.encodedList);
    for (const i of v.setIndexes) t.ok(decoded.isRevoked(i), `index ${i} is set`);
    t.equal(decoded.count(), v.setIndexes.length, 'and nothing else');
    const bytes = decoded.toBytes();
    for (const [at, value] of Object.entries(v.nonZeroBytes)) t.equal(bytes[Number(at)], Number(value), `byte ${at}`);
    const built = v.setIndexes.reduce((l, i) => l.revoke(i), RevocationList.empty());
    t.same(built.toBytes(), bytes, 'revoking the same indexes builds the same list');
    t.same(RevocationList.fromEncodedList(built.encodedList()).toBytes(), bytes, 'encodedList round-trips');
    t.same(RevocationList.fromChain(built.toChain()).toBytes(), bytes, 'the on-chain form round-trips');
  });
}

t.test('the encodings are deterministic: equal lists give equal bytes', async (t) => {
  const a = RevocationList.empty().revoke(5).revoke(70_000);
  const b = RevocationList.empty().revoke(70_000).revoke(5);
  t.same(a.toChain(), b.toChain());
  t.equal(a.encodedList(), b.encodedList());
  t.notOk(a.encodedList().includes('='), 'base64url without padding');
  t.match(a.encodedList(), /^H4sI/, 'GZIP (1f 8b 08)');
  t.equal(a.toChain()[0], 0x78, 'zlib on chain');
  t.ok(a.toChain().length < 100, `a sparse list is small on chain (${a.toChain().length} bytes)`);
});

t.test('revocation is per entry and permanent; indexes are checked', async (t) => {
  const before = RevocationList.empty();
  const after = before.revoke(131_071);
  t.notOk(before.isRevoked(131_071), 'revoke returns a new list');
  t.ok(after.isRevoked(131_071));
  t.ok(after.revoke(131_071).isRevoked(131_071), 'revoking twice changes nothing');
  for (const bad of [-1, REVOCATION_LIST_ENTRIES, 1.5, Number.NaN]) {
    t.throws(() => after.revoke(bad), { code: 'BAD_REVOCATION_INDEX' }, `revoke(${bad})`);
    t.throws(() => after.isRevoked(bad), { code: 'BAD_REVOCATION_INDEX' }, `isRevoked(${bad})`);
  }
});

t.test('hostile input: bad text, not compressed, bombs, wrong sizes', async (t) => {
  const bad = (f: () => unknown, re: RegExp, what: string) => t.throws(f, { code: 'BAD_REVOCATION_LIST', message: re }, what);
  bad(() => RevocationList.fromEncodedList('not base64!'), /base64url/, 'not base64url');
  bad(() => RevocationList.fromEncodedList('A'.repeat(40_000)), /at most 32 KiB/, 'too long');
  bad(() => RevocationList.fromEncodedList(Buffer.from('plain text, not gzip').toString('base64url')), /not a compressed/, 'not GZIP');
  const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024));
  bad(() => RevocationList.fromEncodedList(bomb.toString('base64url')), /more than 16384 bytes/, 'a 10 MiB bomb');
  bad(() => RevocationList.fromChain(deflateSync(Buffer.alloc(REVOCATION_LIST_BYTES + 1))), /more than 16384 bytes/, 'one byte too many on chain');
  bad(() => RevocationList.fromChain(Uint8Array.of(1, 2, 3)), /not a compressed/, 'garbage on chain');
  const truncated = RevocationList.empty().toChain().slice(0, -4);
  bad(() => RevocationList.fromChain(truncated), /not a compressed/, 'a truncated stream');
  bad(() => RevocationList.fromBytes(new Uint8Array(10)), /got 10/, 'raw bytes of the wrong size');
});
