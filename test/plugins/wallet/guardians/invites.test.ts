import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import { addressFromPublicKey, generateSeed, keyPairFromSeed } from '../../../../node/client/index.js';
import { ERRORS_BASE } from '../harness.js';
import { startGuardians } from './fixture.js';

t.test('guardian invites by DID and by email: tokens, mail, confirm, lists, remove', async (t) => {
  const h = await startGuardians(t);
  const [owner, g1, g2] = await Promise.all([h.signIn({ onChain: true }), h.signIn({ onChain: true }), h.signIn({ onChain: true })]);
  const offChain = await h.signIn();
  const invite = (body: unknown, cookie = owner.cookie) => h.req('POST', '/v1/guardian/invite', { cookie, body });

  t.same([(await h.req('GET', '/v1/guardian/my-guardians')).status, (await h.req('POST', '/v1/guardian/invite', { body: { guardianDid: g1.user.did } })).body], [401, { error: 'Unauthorized' }]);

  const bad: Array<[unknown, number, RegExp]> = [
    [{}, 400, /guardianDid or guardianEmail/],
    [{ guardianName: 'Nobody' }, 400, /guardianDid or guardianEmail/],
    [{ guardianDid: owner.user.did }, 400, /your own guardian/],
    [{ guardianDid: 'did:ledger:testnet:nope' }, 400, /guardianDid/],
    [{ guardianDid: owner.user.did.replace(':testnet:', ':mainnet:') }, 400, /network mainnet/],
    [{ guardianDid: `did:ledger:testnet:${addressFromPublicKey(keyPairFromSeed(generateSeed()).publicKey)}` }, 404, /does not exist on chain/],
    [{ guardianDid: offChain.user.did }, 404, /does not exist on chain/],
    [{ guardianEmail: 'not an email' }, 400, /email address/],
    [{ guardianEmail: 'a@b.example', role: 'x' }, 400, /unknown field role/],
    [{ guardianEmail: 'a@b.example', guardianName: 7 }, 400, /guardianName must be a string/],
  ];
  for (const [body, status, detail] of bad) {
    const res = await invite(body);
    t.equal(res.status, status, JSON.stringify(body));
    t.match(res.body, { type: `${ERRORS_BASE}/${status}`, status, detail });
  }
  const secret = await invite({ guardianEmail: 'a@b.example', privateKey: 'aa'.repeat(32) });
  t.match([secret.status, secret.body], [400, { code: 'PRIVATE_KEY_REFUSED' }], 'a private key field is refused');
  t.notMatch(secret.text, 'aa'.repeat(32), 'and never echoed');

  // by DID: the answer has the one-time token; the store keeps only its hash
  const byDid = await invite({ guardianDid: g1.user.did, guardianName: 'Alice' });
  t.equal(byDid.status, 201);
  t.match(byDid.body, { id: /^gdn_[0-9a-f]{24}$/, guardianDid: g1.user.did, guardianEmail: null, guardianName: 'Alice', status: 'invited', acceptedAt: null, token: /^[A-Za-z0-9_-]{43}$/, mail: null });
  const stored = await h.services.store.get(byDid.body.id);
  t.equal(stored!.tokenHash, createHash('sha256').update(byDid.body.token).digest('hex'));
  t.notMatch(JSON.stringify(stored), byDid.body.token, 'the token itself is not stored');
  t.match(await invite({ guardianDid: g1.user.did }), { status: 409, body: { code: 'GUARDIAN_EXISTS' } }, 'no second live invite of one DID');

  // by email: a mail with the token and the confirm link, into the outbox (no SMTP configured)
  const byEmail = await invite({ guardianEmail: 'Bob@Example.com' });
  t.equal(byEmail.status, 201);
  t.match(byEmail.body, { guardianDid: null, guardianEmail: 'bob@example.com', status: 'invited', mail: { sent: true, via: 'outbox' } });
  const [mail] = await h.mailer.outbox();
  t.equal(mail!.to, 'bob@example.com');
  t.match(mail!.subject, /guardian/);
  t.ok(mail!.text.includes(byEmail.body.token), 'the mail carries the token');
  t.ok(mail!.text.includes(`${h.parts.base.publicUrl()}/v1/guardian/confirm`), 'and where to confirm it');
  t.match(await invite({ guardianEmail: 'BOB@example.com' }), { status: 409 }, 'no second live invite of one email');

  const mine = await h.req('GET', '/v1/guardian/my-guardians', { cookie: owner.cookie });
  const rows = (list: Array<{ id: string; status: string }>) => list.map((g) => `${g.id} ${g.status}`).sort();
  t.same(rows(mine.body), rows([{ id: byDid.body.id, status: 'invited' }, { id: byEmail.body.id, status: 'invited' }]));
  t.notOk(mine.body.some((g: Record<string, unknown>) => 'token' in g || 'tokenHash' in g), 'lists never show tokens');

  // the invitees see their invites: by DID, and by email once their wallet has that email
  const pending1 = await h.req('GET', '/v1/guardian/pending-invites', { cookie: g1.cookie });
  t.match(pending1.body, [{ id: byDid.body.id, ownerDid: owner.user.did, guardianName: 'Alice', invitedBy: 'did' }]);
  t.equal(pending1.body.length, 1);
  t.notOk('token' in pending1.body[0]);
  t.same((await h.req('GET', '/v1/guardian/pending-invites', { cookie: g2.cookie })).body, [], 'no email on the wallet: no email invites');
  await h.parts.users.update(g2.user.id, (u) => ({ ...u, email: 'bob@example.com' }));
  t.match((await h.req('GET', '/v1/guardian/pending-invites', { cookie: g2.cookie })).body, [{ id: byEmail.body.id, invitedBy: 'email' }]);
  t.equal((await h.req('GET', '/v1/guardian/pending-invites?x=1', { cookie: g2.cookie })).status, 400, 'unknown query parameters are refused');

  // confirm
  const confirm = (token: unknown, cookie: string) => h.req('POST', '/v1/guardian/confirm', { cookie, body: { token } });
  t.match(await confirm(byDid.body.token, g2.cookie), { status: 403, body: { code: 'NOT_THE_INVITEE' } }, 'a DID invite is for that DID only');
  t.match(await confirm('short', g1.cookie), { status: 400, body: { field: 'token' } });
  t.match(await confirm(randomBytes(32).toString('base64url'), g1.cookie), { status: 400, body: { detail: /unknown or was already used/ } });
  t.match(await confirm(byEmail.body.token, owner.cookie), { status: 400, body: { detail: /your own guardian/ } });
  t.match(await confirm(byEmail.body.token, offChain.cookie), { status: 409, body: { code: 'GUARDIAN_DID_NOT_ACTIVE' } }, 'a guardian must be an active DID on chain');
  const ok1 = await confirm(byDid.body.token, g1.cookie);
  t.equal(ok1.status, 200);
  t.match(ok1.body, { id: byDid.body.id, guardianDid: g1.user.did, status: 'active', ownerDid: owner.user.did, acceptedAt: /^\d{4}-/ });
  t.match(await confirm(byDid.body.token, g1.cookie), { status: 400, body: { detail: /already used/ } }, 'a token works once');
  const ok2 = await confirm(byEmail.body.token, g2.cookie);
  t.match(ok2, { status: 200, body: { guardianDid: g2.user.did, guardianEmail: 'bob@example.com', status: 'active' } }, 'the email invite takes the confirming DID');
  t.same((await h.req('GET', '/v1/guardian/pending-invites', { cookie: g1.cookie })).body, []);
  t.match(await invite({ guardianDid: g2.user.did }), { status: 409 }, 'an active guardian cannot be invited again');

  // remove: the owner only
  t.match(await h.req('DELETE', `/v1/guardian/${byDid.body.id}`, { cookie: g1.cookie }), { status: 404 }, 'another user gets 404');
  t.match(await h.req('DELETE', '/v1/guardian/not-an-id', { cookie: owner.cookie }), { status: 400 });
  t.match(await h.req('DELETE', `/v1/guardian/${byDid.body.id}`, { cookie: owner.cookie }), { status: 200, body: { id: byDid.body.id, status: 'removed' } });
  t.match(await h.req('DELETE', `/v1/guardian/${byDid.body.id}`, { cookie: owner.cookie }), { status: 404 }, 'removed once');
  t.same((await h.req('GET', '/v1/guardian/my-guardians', { cookie: owner.cookie })).body.map((g: { id: string }) => g.id), [byEmail.body.id]);
  t.same(await h.services.store.forDid(g1.user.did), [], 'the DID index forgets a removed guardian');

  // an invite past its time shows as expired and cannot be confirmed
  const again = await invite({ guardianDid: g1.user.did });
  t.equal(again.status, 201, 'a removed guardian can be invited again');
  const realNow = h.parts.base.now;
  h.parts.base.now = () => realNow() + (h.parts.base.config.inviteTtlSeconds + 1) * 1000;
  try {
    t.match((await h.req('GET', '/v1/guardian/my-guardians', { cookie: owner.cookie })).body, [{ status: 'active' }, { id: again.body.id, status: 'expired' }]);
    t.match(await confirm(again.body.token, g1.cookie), { status: 400, body: { detail: /expired/ } });
  } finally {
    h.parts.base.now = realNow;
  }
});
