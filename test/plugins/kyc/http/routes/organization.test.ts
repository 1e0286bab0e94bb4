import t from 'tap';
import { MAX_LOGO_BYTES } from '../../../../../plugins/kyc/accounts/branding.js';
import { harness, isProblem } from '../../accounts/harness.js';
import { jpegImage, pngImage } from '../../verification/harness.js';

const dataUri = (type: string, bytes: Buffer): string => `data:image/${type};base64,${bytes.toString('base64')}`;

t.test('GET and PATCH /v1/organization: name, colour and logo, cleared with null', async (t) => {
  const h = await harness(t);
  const a = await h.register(undefined, undefined, 'Grace');
  const got = await h.req('GET', '/v1/organization', { token: a.token });
  t.equal(got.status, 200);
  t.same(Object.keys(got.body).sort(), ['branding', 'createdAt', 'email', 'id', 'name', 'plan']);
  t.match(got.body, { id: a.user.organizationId, name: "Grace's organization", email: a.user.email, plan: 'free', branding: { color: null, logo: null } });

  const png = dataUri('png', pngImage(16, 16));
  const set = await h.req('PATCH', '/v1/organization', { token: a.token, body: { name: '  Acme  ', branding: { color: '#1A2b3c', logo: png } } });
  t.equal(set.status, 200);
  t.match(set.body, { name: 'Acme', branding: { color: '#1a2b3c', logo: png } });
  t.same((await h.req('GET', '/v1/organization', { token: a.token })).body, set.body, 'stored');
  t.same((await h.accounts.accounts.organization(a.user.organizationId))?.branding, { color: '#1a2b3c', logo: png }, 'the accounts service shows the branding to the other parts');

  const jpeg = dataUri('jpeg', jpegImage(32, 32));
  t.same((await h.req('PATCH', '/v1/organization', { token: a.token, body: { branding: { logo: jpeg } } })).body.branding, { color: '#1a2b3c', logo: jpeg }, 'a field left out is kept');
  t.same((await h.req('PATCH', '/v1/organization', { token: a.token, body: { branding: { color: null } } })).body.branding, { color: null, logo: jpeg });
  await h.req('PATCH', '/v1/organization', { token: a.token, body: { branding: { logo: null } } });
  t.equal((await h.accounts.accounts.organization(a.user.organizationId))?.branding, undefined, 'nothing left: no branding stored');

  const b = await h.register();
  t.equal((await h.req('GET', '/v1/organization', { token: b.token })).body.name, "Ada Lovelace's organization", 'each caller sees its own organization');
});

t.test('PATCH /v1/organization: each bad branding gets its code', async (t) => {
  const h = await harness(t);
  const a = await h.register();
  const bad = async (body: unknown, code: string | undefined, field: string | undefined) => {
    const res = await h.req('PATCH', '/v1/organization', { token: a.token, body });
    isProblem(t, res, 400, 'validation', code);
    t.equal(res.body.field, field);
  };
  for (const color of ['#12345', '#1234567', '123456', '#12345g', 'red', 0x123456, '#123456 ']) await bad({ branding: { color } }, 'BRANDING_COLOR_INVALID', 'branding.color');
  await bad({ branding: { logo: 'https://example.org/logo.png' } }, 'BRANDING_LOGO_INVALID', 'branding.logo');
  await bad({ branding: { logo: dataUri('gif', pngImage(4, 4)) } }, 'BRANDING_LOGO_INVALID', 'branding.logo');
  await bad({ branding: { logo: 'data:image/png;base64,' } }, 'BRANDING_LOGO_INVALID', 'branding.logo');
  await bad({ branding: { logo: 'data:image/png;base64,iVBO!!==' } }, 'BRANDING_LOGO_INVALID', 'branding.logo');
  await bad({ branding: { logo: dataUri('png', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')) } }, 'BRANDING_LOGO_NOT_IMAGE', 'branding.logo');
  await bad({ branding: { logo: dataUri('png', jpegImage(8, 8)) } }, 'BRANDING_LOGO_NOT_IMAGE', 'branding.logo');
  await bad({ branding: { logo: dataUri('jpeg', pngImage(8, 8)) } }, 'BRANDING_LOGO_NOT_IMAGE', 'branding.logo');
  const png = pngImage(8, 8);
  const oversize = Buffer.concat([png, Buffer.alloc(MAX_LOGO_BYTES + 1 - png.length)]);
  await bad({ branding: { logo: dataUri('png', oversize) } }, 'BRANDING_LOGO_TOO_LARGE', 'branding.logo');
  const atLimit = Buffer.concat([png, Buffer.alloc(MAX_LOGO_BYTES - png.length)]);
  t.equal((await h.req('PATCH', '/v1/organization', { token: a.token, body: { branding: { logo: dataUri('png', atLimit) } } })).status, 200, 'exactly the limit passes');
  await bad({ branding: { colour: '#123456' } }, 'BRANDING_INVALID', 'branding.colour');
  await bad({ branding: '#123456' }, 'BRANDING_INVALID', 'branding');
  await bad({ name: '' }, undefined, 'name');
  await bad({ name: null }, undefined, 'name');
  await bad({ plan: 'enterprise' }, undefined, 'plan');
  await bad({}, undefined, undefined);
  t.same((await h.req('GET', '/v1/organization', { token: a.token })).body.branding, { color: null, logo: dataUri('png', atLimit) }, 'nothing bad was stored');
});

t.test('only owners and admins change the organization; every member reads it', async (t) => {
  const h = await harness(t);
  const a = await h.register();
  const row = (await h.accounts.store.users.get(a.user.id))!;
  await h.accounts.store.users.put(a.user.id, { ...row, role: 'reviewer' });
  t.equal((await h.req('GET', '/v1/organization', { token: a.token })).status, 200);
  isProblem(t, await h.req('PATCH', '/v1/organization', { token: a.token, body: { name: 'x' } }), 403, 'forbidden', 'ROLE_FORBIDDEN');
  const { role: _role, ...legacy } = row;
  await h.accounts.store.users.put(a.user.id, legacy);
  t.equal((await h.req('PATCH', '/v1/organization', { token: a.token, body: { name: 'x' } })).status, 200, 'an account made before roles is its owner');
  isProblem(t, await h.req('GET', '/v1/organization'), 401, 'unauthorized');
});
