import t from 'tap';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  buildCredential,
  buildCredentialRequest,
  buildCredentialRevoke,
  buildDidCreate,
  buildTransfer,
  credentialHash,
  didForPublicKey,
  fromHex,
  generateSeed,
  keyPairFromSeed,
  RevocationList,
  signAndEncode,
  signCredential,
  UNIT,
  verifyAttestation,
  verifyCredentialProof,
  waitForReceipt,
  withExtensions,
} from '../../node/client/index.js';
import { readKeyFile } from '../../node/config/keyfile.js';
import { parseCredentialId } from '../../node/protocol/credential-id.js';
import { Cluster } from './cluster.js';

/**
 * The issuance flow on real processes, from the client module: an issuer requests a KYC level-2
 * credential, the four validators' attesters select themselves by VRF and attest, the credential
 * is registered, verified over RPC and in its W3C form, revoked, and seen revoked in the list the
 * node serves.
 */

t.test('request, committee attestation, registration, verification and revocation on a 4-validator devnet', async (t) => {
  const c = await Cluster.create(t, 4);
  await c.startAll();
  await c.waitForSeq([0, 1, 2, 3], 2, 60_000);
  const node = c.nodes[0]!;
  const rpc = node.client;
  const send = async (unsigned: Parameters<typeof signAndEncode>[1], seed: Uint8Array) => {
    const s = signAndEncode(c.chainId, unsigned, seed);
    await rpc.sendTransaction(s.json);
    return waitForReceipt(rpc, s.hash, { timeoutMs: 30_000 });
  };

  const issuer = keyPairFromSeed(generateSeed());
  const subject = keyPairFromSeed(generateSeed());
  const issuerDid = didForPublicKey('testnet', issuer.publicKey);
  const subjectDid = didForPublicKey('testnet', subject.publicKey);
  for (const [i, who] of [issuer, subject].entries()) {
    const funded = await send(buildTransfer({ senderPubkey: c.dev.publicKey, nonce: i, to: didForPublicKey('testnet', who.publicKey).split(':')[3]!, amount: 100n * UNIT }), c.dev.seed);
    t.equal(funded.status, 'success');
    t.equal((await send(buildDidCreate({ senderPubkey: who.publicKey, nonce: 0 }), who.seed)).status, 'success');
  }

  const position = await rpc.nextRevocationIndex(issuerDid);
  t.same(position, { status_list: 0, status_index: 0 });
  const uuid = randomUUID();
  const listUrl = `${node.rpcUrl}/revocation-lists/${issuerDid}/0`;
  const body = buildCredential({
    uuid,
    type: 'KYCCredential',
    kycLevel: 2,
    issuer: { did: issuerDid, name: 'Example KYC' },
    subject: { did: subjectDid, verifiedAttributes: ['governmentId', 'address'], jurisdiction: 'DE' },
    issuanceDate: '2026-01-01T00:00:00Z',
    expirationDate: '2027-01-01T00:00:00Z',
    status: { listUrl, index: position.status_index },
  });
  const hash = await credentialHash(body);
  const requested = await send(
    buildCredentialRequest({
      senderPubkey: issuer.publicKey,
      nonce: 1,
      credentialId: uuid,
      credentialType: 'KYCCredential',
      kycLevel: 2,
      subjectDid,
      issuerDid,
      hash,
      evidenceDigest: new Uint8Array(32).fill(0x5e),
      statusList: position.status_list,
      statusIndex: position.status_index,
    }),
    issuer.seed,
  );
  t.equal(requested.status, 'success', 'the request is accepted');

  const id = `urn:ledger:credential:${uuid}`;
  await c.waitFor(async () => (await rpc.getCredentialRequest(id))?.status === 'registered', 60_000, 'registration by the committee');
  const verified = (await rpc.credentialVerify(id))!;
  t.match(verified, { valid: true, revoked: false, credential: { id, issuer_did: issuerDid, subject_did: subjectDid, kyc_level: 2, threshold: 3, issuer_active: true } });
  const signatures = verified.credential.validator_signatures;
  t.ok(signatures.length >= 3, `${signatures.length} validators attested`);
  const keys = await Promise.all(c.nodes.map((n) => readKeyFile(join(n.dir, 'keys', 'validator.json'))));
  for (const s of signatures) {
    const key = keys.find((k) => k.address === s.validator);
    t.ok(key && verifyAttestation(key.publicKey, fromHex(s.signature), c.chainId, parseCredentialId(id), hash), `the signature of ${s.validator} covers the credential hash`);
  }
  t.same((await rpc.credentialsByIssuer(issuerDid)).map((r) => r.id), [id]);

  const credential = await signCredential(
    await withExtensions(body, { validatorSignatures: signatures, consensusRound: verified.credential.consensus_round! }),
    issuer.seed,
    '2026-01-01T00:00:00Z',
  );
  t.same(await verifyCredentialProof(credential, issuer.publicKey), { ok: true }, 'the W3C credential verifies with the issuer key');

  const listBefore = (await (await fetch(listUrl)).json()) as { credentialSubject: { encodedList: string } };
  t.notOk(RevocationList.fromEncodedList(listBefore.credentialSubject.encodedList).isRevoked(0));
  const stranger = await send(buildCredentialRevoke({ senderPubkey: subject.publicKey, nonce: 1, credentialId: id }), subject.seed);
  t.match(stranger.status, /failed: only the issuer .* or the governance key can revoke/);
  t.equal((await send(buildCredentialRevoke({ senderPubkey: issuer.publicKey, nonce: 2, credentialId: id }), issuer.seed)).status, 'success');
  t.match(await rpc.credentialVerify(id), { valid: false, revoked: true });
  const listAfter = (await (await fetch(listUrl)).json()) as { credentialSubject: { encodedList: string } };
  t.ok(RevocationList.fromEncodedList(listAfter.credentialSubject.encodedList).isRevoked(0), 'the served list shows the bit');
  t.equal((await fetch(`${node.rpcUrl}/revocation-lists/${issuerDid}/1`)).status, 404, 'no list 1 yet');
});
