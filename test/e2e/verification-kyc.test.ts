import t from 'tap';
import { chmod, copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  buildDidCreate,
  buildTransfer,
  buildVerificationRequest,
  didForPublicKey,
  generateSeed,
  keyPairFromSeed,
  presentForVerification,
  signAndEncode,
  UNIT,
  verifyVerificationResponse,
  waitForReceipt,
  type KycBbsForm,
  type LedgerVerificationResponse,
  type RpcClient,
} from '../../node/client/index.js';
import { serviceKeyPath } from '../../node/config/datadir.js';
import { toHex } from '../../node/protocol/bytes.js';
import { KYC_BBS_HEADER } from '../../node/protocol/kyc-bbs.js';
import { KycClient } from '../../bench/lib/kyc/client.js';
import { testJpeg } from '../../bench/lib/kyc/images.js';
import { Cluster } from './cluster.js';
import { OPERATOR_TOKEN } from './kyc/setup.js';
import { startOutsideWallet } from './kyc/wallet.js';

/**
 * Issue 27's "done" end to end, with the credential from the KYC plugin rather than registered by
 * hand: on a 4-validator devnet whose node 0 runs the KYC plugin (its issuer account funded at
 * genesis, as `ledger init` funds it), a sandbox session at level 2 passes with a passport whose
 * MRZ gives an adult's date of birth; an outside OpenID4VCI wallet redeems the offer with the
 * subject's proof and keeps the credential's BBS form; a dApp asks "KYC level ≥ 2 and at least
 * 18"; the subject presents a BBS proof disclosing ageOver18 but not the birth date, at another
 * node than the one that took the request; the committee's final answer is verified: true,
 * signed by the threshold, and checks offline against the validator set.
 */

/** ICAO 9303 check digit: weights 7, 3, 1; digits as such, A–Z 10–35, '<' 0. */
function checkDigit(s: string): string {
  let sum = 0;
  for (const [i, ch] of [...s].entries()) {
    const v = ch === '<' ? 0 : /\d/.test(ch) ? Number(ch) : ch.charCodeAt(0) - 55;
    sum += v * [7, 3, 1][i % 3]!;
  }
  return String(sum % 10);
}

/** A TD3 (passport) MRZ with valid check digits; dates as YYMMDD. */
function td3(o: { surname: string; given: string; number: string; nationality: string; birth: string; sex: 'F' | 'M'; expiry: string; optional: string }): string {
  const line1 = `P<${o.nationality}${o.surname}<<${o.given}`.padEnd(44, '<');
  const number = o.number.padEnd(9, '<');
  const optional = o.optional.padEnd(14, '<');
  const docPart = number + checkDigit(number);
  const birthPart = o.birth + checkDigit(o.birth);
  const expiryPart = o.expiry + checkDigit(o.expiry);
  const optionalPart = optional + checkDigit(optional);
  const composite = checkDigit(docPart + birthPart + expiryPart + optionalPart);
  const line2 = `${docPart}${o.nationality}${birthPart}${o.sex}${expiryPart}${optionalPart}${composite}`;
  if (line2.length !== 44) throw new Error(`bad TD3 line 2 length ${line2.length}`);
  return `${line1}\n${line2}`;
}

// a devnet of four, the KYC plugin and an outside wallet: more than the default 180 s on a loaded machine
t.setTimeout(600_000);

t.test('a KYC credential from the plugin sandbox answers a verification request on a 4-validator devnet', async (t) => {
  const began = Date.now();
  const c = await Cluster.create(t, 4);

  // node 0 runs the KYC plugin: the issuer key funded at genesis, the plugin on, with an operator token
  const n0 = c.nodes[0]!;
  const genesisDir = join(c.dir, 'genesis');
  await copyFile(serviceKeyPath(genesisDir, 'kyc'), serviceKeyPath(n0.dir, 'kyc'));
  await chmod(serviceKeyPath(n0.dir, 'kyc'), 0o600);
  const kycUrl = await c.enablePlugin(0, 'kyc', { operatorToken: OPERATOR_TOKEN });
  // the plugin's node first, with room to load on a busy machine; then the other three
  await c.start(0);
  await Promise.all([c.start(1), c.start(2), c.start(3)]);
  await c.waitForSeq([0, 1, 2, 3], 2, 60_000);
  t.comment(`devnet up in ${Date.now() - began} ms`);

  const rpc: RpcClient = c.nodes[0]!.client;
  let devNonce = 0;
  const send = async (unsigned: Parameters<typeof signAndEncode>[1], seed: Uint8Array) => {
    const s = signAndEncode(c.chainId, unsigned, seed);
    await rpc.sendTransaction(s.json);
    return waitForReceipt(rpc, s.hash, { timeoutMs: 30_000 });
  };
  const party = async () => {
    const seed = generateSeed();
    const keys = keyPairFromSeed(seed);
    const did = didForPublicKey('testnet', keys.publicKey);
    const address = did.split(':')[3]!;
    t.equal((await send(buildTransfer({ senderPubkey: c.dev.publicKey, nonce: devNonce++, to: address, amount: 100n * UNIT }), c.dev.seed)).status, 'success');
    t.equal((await send(buildDidCreate({ senderPubkey: keys.publicKey, nonce: 0 }), seed)).status, 'success');
    return { seed, did, address };
  };
  const subject = await party();
  const dapp = await party();

  // the KYC sandbox: level 2, a passport whose MRZ gives an adult's birth date, liveness, pass
  const api = new KycClient(kycUrl);
  await api.register('verifier@example.org', 'a long enough passphrase', 'Verification Test');
  await api.createKey('sandbox');
  const expiry = String((new Date().getUTCFullYear() + 8) % 100).padStart(2, '0') + '1231';
  const mrz = td3({ surname: 'ERIKSSON', given: 'ANNA<MARIA', number: 'L898902C3', nationality: 'UTO', birth: '900517', sex: 'F', expiry, optional: 'ZE184226B' });
  const { session } = await api.createSession({ level: 2, sandbox: true, sandboxOutcome: 'pass', subjectDid: subject.did });
  await api.uploadDocument(session.id, testJpeg(800, 500, 1), { type: 'passport', side: 'front', final: true, mrz });
  await api.livenessChallenge(session.id);
  await api.liveness(session.id, [testJpeg(320, 240, 2), testJpeg(320, 240, 3), testJpeg(320, 240, 4)]);
  let full = (await api.getSession(session.id)).session;
  await c.waitFor(
    async () => {
      full = (await api.getSession(session.id)).session;
      return Boolean(full.credentialOfferUri);
    },
    90_000,
    'the credential offer',
  );
  t.equal(full.status, 'completed', 'the sandbox session passed');
  t.comment(`credential offered after ${Date.now() - began} ms`);

  // the subject's wallet, an outside OpenID4VCI client, redeems it with the subject's proof
  const wallet = await startOutsideWallet(t);
  await wallet.resolve(`openid-credential-offer://?credential_offer_uri=${encodeURIComponent(full.credentialOfferUri)}`);
  const token = await wallet.token();
  const got = (await wallet.credential({ seed: subject.seed, didUrl: `${subject.did}#key-1`, nonce: token.c_nonce! })) as { credential?: { id: string; issuer: { id: string }; credentialSubject: { id: string; kycLevel: number } }; bbs?: KycBbsForm };
  t.match(got.credential, { id: full.credentialId, credentialSubject: { id: subject.did, kycLevel: 2 } }, 'the W3C credential');
  const form = got.bbs;
  if (!form) throw new Error(`the credential answer carries no bbs form: ${JSON.stringify(Object.keys(got))}`);
  t.match(form, { header: toHex(KYC_BBS_HEADER), messageCount: 12 }, 'and its BBS form, passed through by the wallet');
  t.ok(form.messages.includes('birthDate=1990-05-17'), 'the MRZ birth date is in the BBS form');
  t.ok(form.messages.includes('ageOver18=true'), 'the subject is over 18 on the day of issuance');
  t.ok(form.messages.includes('kycLevel=2'), 'at level 2');
  const issuerDid = got.credential!.issuer.id;
  await c.waitFor(async () => (await rpc.getCredentialRequest(got.credential!.id))?.status === 'registered', 60_000, 'the credential registered on chain');

  // the dApp asks at node 1
  const request = buildVerificationRequest({
    requesterSeed: dapp.seed,
    subjectDid: subject.did,
    claims: [{ type: 'KYCCredential', constraints: { minimumLevel: 2, minimumAge: 18 }, acceptZKProof: true }],
    purpose: 'age and identity check at signup',
    chainId: c.chainId,
    nonce: 1,
  });
  const taker = c.nodes[1]!.client;
  const submitted = await taker.submitVerificationRequest(request);
  t.equal((await waitForReceipt(taker, submitted.txHash, { timeoutMs: 30_000 })).status, 'success', 'the request executes');

  // the subject presents with BBS selective disclosure, at node 3
  const presentation = await presentForVerification({ request, holderSeed: subject.seed, holderDid: subject.did, chainId: c.chainId, credentials: [{ claim: 0, bbs: form }] });
  const entry = presentation.credentials[0]!;
  t.equal(entry.proofType, 'bbs');
  const disclosed = entry.proofType === 'bbs' ? entry.disclosed.map((d) => d.message) : [];
  t.ok(disclosed.includes('ageOver18=true'), 'ageOver18 is disclosed');
  t.ok(disclosed.includes('kycLevel=2'), 'the level is disclosed');
  t.notOk(
    disclosed.some((m) => m.startsWith('birthDate=')),
    'the birth date is not: ageOver18 suffices',
  );
  const sent = await c.nodes[3]!.client.submitPresentation(presentation);
  t.match(sent, { requestId: request.requestId, peers: 3 }, 'the presentation is taken at another node than the request, and sent on to the others');

  const response = () => rpc.call<LedgerVerificationResponse | null>('ledger_getVerificationResponse', [request.requestId]);
  await c.waitFor(async () => (await response())?.status === 'final', 60_000, 'the final response');
  const res = (await response())!;
  t.equal(res.verified, true, 'verified');
  t.match(res.claims, [{ type: 'KYCCredential', satisfied: true, issuer: issuerDid, proofType: 'zk-snark' }]);
  t.ok(res.validatorSignatures.length >= 3, `${res.validatorSignatures.length} validators signed`);
  t.match(res.consensusProof, { totalValidators: 4, threshold: 3 });
  const epoch = await c.nodes[2]!.client.call<{ validators: Array<{ address: string }> }>('ledger_getEpoch');
  const validators = epoch.validators.map((v) => v.address);
  const check = verifyVerificationResponse({ response: res, request, validators, chainId: c.chainId });
  t.same({ valid: check.valid, verified: check.verified, problems: check.problems }, { valid: true, verified: true, problems: [] }, 'it verifies offline from the validator set');
  t.notOk(verifyVerificationResponse({ response: { ...res, verified: false }, request, validators, chainId: c.chainId }).valid, 'a changed answer does not');
  t.comment(`whole flow in ${Date.now() - began} ms`);
});
