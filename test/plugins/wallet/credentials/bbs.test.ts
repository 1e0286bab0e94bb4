import t from 'tap';
import { randomUUID } from 'node:crypto';
import { bbsKeyPair, bbsSign } from '../../../../node/crypto/bbs.js';
import { keyPairFromSeed } from '../../../../node/crypto/ed25519.js';
import { toHex } from '../../../../node/protocol/bytes.js';
import { buildCredential, signCredential, withExtensions, type Credential } from '../../../../node/protocol/credential-document.js';
import { didForPublicKey } from '../../../../node/protocol/did.js';
import { KYC_BBS_HEADER, KYC_BBS_MESSAGE_COUNT, kycBbsIndex, kycBbsMessages, type KycBbsAttributes } from '../../../../node/protocol/kyc-bbs.js';
import { checkBbsForm, type BbsForm } from '../../../../plugins/wallet/credentials/bbs.js';

/**
 * The wallet keeps a KYC credential's BBS form only when it is that credential's own: a real
 * W3C credential and a real BBS signature over the KYC layout, then each way a form can differ
 * from the credential or from what the chain registered.
 */

const issuer = keyPairFromSeed(new Uint8Array(32).fill(1));
const holder = keyPairFromSeed(new Uint8Array(32).fill(2));
const issuerDid = didForPublicKey('testnet', issuer.publicKey);
const holderDid = didForPublicKey('testnet', holder.publicKey);
const ISSUED = '2026-01-01T00:00:00Z';
const EXPIRES = '2027-01-01T00:00:00Z';

async function credential(): Promise<Credential> {
  const body = buildCredential({
    uuid: randomUUID(),
    type: 'KYCCredential',
    kycLevel: 2,
    issuer: { did: issuerDid, name: 'Test KYC' },
    subject: { did: holderDid, verifiedAttributes: ['name', 'dateOfBirth'], jurisdiction: 'DE' },
    issuanceDate: ISSUED,
    expirationDate: EXPIRES,
    status: { listUrl: 'https://issuer.example/revocation/0', index: 0 },
  });
  const extended = await withExtensions(body, { validatorSignatures: [{ validator: didForPublicKey('testnet', issuer.publicKey).split(':')[3]!, signature: 'ab'.repeat(64) }], consensusRound: 1 });
  return signCredential(extended, issuer.seed, ISSUED);
}

const key = await bbsKeyPair(new Uint8Array(32).fill(7));

async function form(vc: Credential, change: Partial<KycBbsAttributes> = {}): Promise<BbsForm> {
  const attrs: KycBbsAttributes = { id: vc.id, issuer: issuerDid, subject: holderDid, issuanceDate: ISSUED, expirationDate: EXPIRES, kycLevel: 2, jurisdiction: 'DE', birthDate: '1990-04-01', verifiedAttributes: ['name', 'dateOfBirth'], ...change };
  const messages = kycBbsMessages(attrs);
  const signature = await bbsSign({ ...key, header: KYC_BBS_HEADER, messages });
  const text = new TextDecoder();
  return { publicKey: toHex(key.publicKey), header: toHex(KYC_BBS_HEADER), messages: messages.map((m) => text.decode(m)), signature: toHex(signature), messageCount: KYC_BBS_MESSAGE_COUNT };
}

t.test("the credential's own form is kept; every other is dropped with its reason", async (t) => {
  const vc = await credential();
  const good = await form(vc);
  const registered = { publicKey: good.publicKey, messageCount: KYC_BBS_MESSAGE_COUNT };
  t.same(await checkBbsForm(good, vc, registered), { form: good }, 'kept as sent');

  const birth = kycBbsIndex('birthDate');
  const altered = { ...good, messages: good.messages.map((m, i) => (i === birth ? 'birthDate=1970-01-01' : m)) };
  const other = await bbsKeyPair(new Uint8Array(32).fill(8));
  const cases: Array<[string, unknown, { publicKey: string | undefined; messageCount: number | undefined }, RegExp]> = [
    ['a message changed after signing', altered, registered, /signature does not verify/],
    ['signed about another subject', await form(vc, { subject: issuerDid }), registered, /its subject is .*, the credential's is/],
    ['signed for another credential id', await form(vc, { id: 'urn:ledger:credential:00000000-0000-4000-8000-000000000000' }), registered, /its id is/],
    ['another key than the registered one', good, { publicKey: toHex(other.publicKey), messageCount: KYC_BBS_MESSAGE_COUNT }, /not the one the chain registered/],
    ['no key registered on chain', good, { publicKey: undefined, messageCount: undefined }, /registered no BBS key/],
    ['another header', { ...good, header: toHex(new TextEncoder().encode('other-layout')) }, registered, /header/],
    ['a message missing', { ...good, messages: good.messages.slice(1), messageCount: KYC_BBS_MESSAGE_COUNT - 1 }, registered, /has 12 messages/],
    ['messages out of order', { ...good, messages: [...good.messages].reverse() }, registered, /message 0 must be id=/],
    ['an extra member', { ...good, birthDate: '1990-04-01' }, registered, /unknown member/],
    ['not an object', 'bbs', registered, /not a JSON object/],
    ['a short key', { ...good, publicKey: 'ab' }, registered, /publicKey must be 96 bytes/],
  ];
  for (const [what, raw, reg, problem] of cases) {
    const out = await checkBbsForm(raw, vc, reg);
    t.ok('problem' in out, what);
    t.match((out as { problem: string }).problem, problem, what);
  }
});
