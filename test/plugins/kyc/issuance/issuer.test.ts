import t from 'tap';
import { bbsDeriveProof, verifyBbsProof } from '../../../../node/crypto/bbs.js';
import { RpcClient } from '../../../../node/client/index.js';
import { fromHex, toHex, utf8 } from '../../../../node/protocol/bytes.js';
import { parseJson } from '../../../../node/protocol/json.js';
import { KYC_BBS_HEADER, KYC_BBS_STRUCTURAL, kycBbsIndex, type KycBbsField } from '../../../../node/protocol/kyc-bbs.js';
import { transactionFromJson } from '../../../../node/protocol/transaction.js';
import type { KycBbsForm } from '../../../../plugins/kyc/issuance/bbs.js';
import { startTestNode } from '../../../fixtures/real-node.js';
import { fundedSubject, IssuancePlugin, passedSession } from './harness.js';

/**
 * The KYCCredential's BBS form on a real single-validator node: the CredentialRequest registers the
 * issuer's BBS key and 12 messages (and no date of birth), the holder gets the form with the
 * credential over OpenID4VCI, and a proof derived from it verifies against the registered key, in
 * process and through ledger_bbsVerifyCredentialProof.
 */

t.test('a KYCCredential is issued with a BBS signature over its attributes', async (t) => {
  const plugin = new IssuancePlugin();
  const node = await startTestNode(t, { plugins: [plugin] });
  const rpc = new RpcClient(node.url);
  const kycUrl = plugin.base.publicUrl();
  const deadline = Date.now() + 30_000;
  while (!(await plugin.did.status()).didActive) {
    if (Date.now() > deadline) throw new Error(`the issuer DID was not created: ${JSON.stringify(await plugin.did.status())}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  const { did: subjectDid } = await fundedSubject(node, rpc);

  const base = passedSession('ver_dob', 'org_A', subjectDid, 2);
  const withDob = { ...base, documents: [{ ...base.documents[0]!, extractedData: { ...base.documents[0]!.extractedData, dateOfBirth: '1990-05-17' } }] };
  const withoutDob = passedSession('ver_nodob', 'org_A', subjectDid, 1);
  for (const s of [withDob, withoutDob]) {
    plugin.sessions.set(s.id, s);
    await plugin.issuance.requestCredential(s);
  }
  await plugin.issuedCount(2);
  const stored = (await plugin.issuance.credentialOfSession(withDob.id))!;
  const form = stored.bbs!;
  const vc = stored.credential;

  await t.test('the request registers the BBS key and 12 messages, and nothing personal', async (t) => {
    const job = (await plugin.issuance.store.get(withDob.id))!;
    const payload = transactionFromJson(parseJson(job.prepared!.txJson)).tx.payload;
    t.match(payload, { kind: 'CredentialRequest', bbs: { messageCount: 12 } });
    t.equal(payload.kind === 'CredentialRequest' && payload.bbs ? toHex(payload.bbs.publicKey) : '', toHex(plugin.bbsKey.publicKey), 'the issuer’s BBS key');
    t.notMatch(job.prepared!.txJson, /1990/, 'the date of birth is not in the transaction');
    const onChain = await rpc.credentialVerify(vc.id);
    t.match(onChain, { valid: true, credential: { bbs_public_key: toHex(plugin.bbsKey.publicKey), bbs_message_count: 12 } });
    t.notMatch(JSON.stringify(onChain), /1990/);
    t.notMatch(JSON.stringify(plugin.issued), /1990/, 'nor in what the session (and its webhooks) hear');
  });

  await t.test('the BBS form has the W3C credential’s id and dates, and the date of birth', async (t) => {
    t.equal(form.publicKey, toHex(plugin.bbsKey.publicKey));
    t.equal(form.header, toHex(KYC_BBS_HEADER));
    t.equal(form.messageCount, 12);
    t.same(form.messages.slice(0, 9), [
      `id=${vc.id}`,
      'type=KYCCredential',
      `issuer=${plugin.key.did}`,
      `subject=${subjectDid}`,
      `issuanceDate=${vc.issuanceDate}`,
      `expirationDate=${vc.expirationDate}`,
      'kycLevel=2',
      'jurisdiction=DE',
      'birthDate=1990-05-17',
    ]);
    t.same(form.messages.slice(9), ['verifiedAttributes=governmentId,liveness', 'ageOver18=true', 'ageOver21=true']);
    const other = (await plugin.issuance.credentialOfSession(withoutDob.id))!.bbs!;
    t.equal(other.messages[kycBbsIndex('birthDate')], 'birthDate=', 'a session without a date of birth');
    t.equal(other.messages[kycBbsIndex('ageOver18')], 'ageOver18=false');
  });

  await t.test('a proof disclosing the structure, the level and ageOver18 verifies against the registered key', async (t) => {
    const fields: KycBbsField[] = [...KYC_BBS_STRUCTURAL, 'kycLevel', 'ageOver18'];
    const disclosedIndexes = fields.map(kycBbsIndex);
    const messages = form.messages.map(utf8);
    const presentationHeader = utf8('verifier-challenge-1');
    const proof = await bbsDeriveProof({ publicKey: fromHex(form.publicKey), signature: fromHex(form.signature), header: fromHex(form.header), messages, presentationHeader, disclosedIndexes });
    const registered = (await rpc.credentialVerify(vc.id))!.credential as { bbs_public_key: string; bbs_message_count: number };
    const disclosed = disclosedIndexes.map((index) => ({ index, message: messages[index]! }));
    t.equal(await verifyBbsProof({ proof, publicKey: fromHex(registered.bbs_public_key), header: KYC_BBS_HEADER, presentationHeader, disclosed, totalMessageCount: registered.bbs_message_count }), true);
    const answer = await rpc.bbsVerifyCredentialProof({ credentialId: vc.id, proofHex: toHex(proof), headerHex: form.header, phHex: toHex(presentationHeader), disclosedMessages: disclosed.map((d) => ({ index: d.index, message: toHex(d.message) })) });
    t.match(answer, { valid: true, proof_valid: true, is_bbs: true, revoked: false }, 'and through ledger_bbsVerifyCredentialProof');
  });

  await t.test('OpenID4VCI hands the holder the BBS form beside the credential', async (t) => {
    const offer = (await plugin.offers.ofSession(withDob.id))!.offer;
    const tokenAnswer = await fetch(`${kycUrl}/v1/oid4vci/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code', 'pre-authorized_code': offer.preAuthorizedCode }).toString(),
    });
    t.equal(tokenAnswer.status, 200);
    const { access_token } = (await tokenAnswer.json()) as { access_token: string };
    const ask = async (request: Record<string, unknown>) => {
      const res = await fetch(`${kycUrl}/v1/oid4vci/credential`, { method: 'POST', headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' }, body: JSON.stringify(request) });
      t.equal(res.status, 200);
      return (await res.json()) as { credential?: unknown; credentials?: Array<{ credential: unknown }>; bbs: KycBbsForm };
    };
    const byFormat = await ask({ format: 'ldp_vc', credential_definition: { '@context': vc['@context'], type: vc.type } });
    t.same(byFormat.credential, vc, 'the W3C credential as before');
    t.same(byFormat.bbs, form);
    const byId = await ask({ credential_configuration_id: 'KYCCredential' });
    t.same(byId.credentials, [{ credential: vc }]);
    t.same(byId.bbs, form);
  });
});
