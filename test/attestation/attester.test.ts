import t from 'tap';
import { ecvrfVerify } from '../../node/crypto/ecvrf.js';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { Attester, attestationFor } from '../../node/attestation/attester.js';
import type { CommittedBlock } from '../../node/chain/app.js';
import { createLogger } from '../../node/logging.js';
import { toHex } from '../../node/protocol/bytes.js';
import { formatCredentialId } from '../../node/protocol/credential-id.js';
import { verifyTransactionSignature, type Transaction } from '../../node/protocol/transaction.js';
import type { EpochValidatorSet } from '../../node/execution/validator-set.js';
import { addressBytesFromPublicKey } from '../../node/protocol/address.js';
import { verifyAttestation } from '../../node/protocol/committee.js';
import type { CredentialRecord } from '../../node/protocol/credential-records.js';

const me = keyPairFromSeed(new Uint8Array(32).fill(1));
const self = { seed: me.seed, address: addressBytesFromPublicKey(me.publicKey) };
const other = new Uint8Array(20).fill(2);

function set(n: number, includeMe = true): EpochValidatorSet {
  const validators = Array.from({ length: n }, (_, i) => ({ address: i === 0 && includeMe ? self.address : new Uint8Array(20).fill(10 + i), blsPublicKey: new Uint8Array(48), weight: 1n }));
  return { epoch: 0, firstHeight: 0, length: 100, validators };
}

const request = {
  id: new Uint8Array(16).fill(3),
  hash: new Uint8Array(32).fill(4),
  seed: new Uint8Array(32).fill(5),
  status: 'pending',
  attestations: [] as CredentialRecord['attestations'],
} as CredentialRecord;

t.test('a member of a small set attests with a proof over the seed and a signature over the hash', async (t) => {
  const out = attestationFor(request, set(4), self, 'chain');
  if (!('payload' in out)) throw new Error(out.skip);
  t.ok(ecvrfVerify(me.publicKey, request.seed, out.payload.vrfProof));
  t.ok(verifyAttestation(me.publicKey, out.payload.signature, 'chain', request.id, request.hash));
});

t.test('no attestation when it is not owed', async (t) => {
  t.same(attestationFor({ ...request, status: 'registered' }, set(4), self, 'chain'), { skip: 'request is registered' });
  t.same(attestationFor(request, set(4, false), self, 'chain'), { skip: 'not in the current validator set' });
  t.same(attestationFor(request, undefined, self, 'chain'), { skip: 'not in the current validator set' });
  const done = { ...request, attestations: [{ validator: self.address, vrfProof: new Uint8Array(80), signature: new Uint8Array(64) }] };
  t.same(attestationFor(done, set(4), self, 'chain'), { skip: 'already attested' });
  t.ok(attestationFor({ ...request, attestations: [{ validator: other, vrfProof: new Uint8Array(80), signature: new Uint8Array(64) }] }, set(4), self, 'chain'));
});

t.test('in a large set, the VRF decides, and the decision matches the sortition rule', async (t) => {
  let selected = 0;
  for (let i = 0; i < 40; i++) {
    const out = attestationFor({ ...request, seed: new Uint8Array(32).fill(i) }, set(100), self, 'chain');
    if ('payload' in out) selected++;
    else t.equal(out.skip, 'not selected for this committee');
  }
  t.ok(selected > 0 && selected < 40, `selected for ${selected} of 40 seeds at p = 0.21`);
});

/** An attester of validator `me` in a set of 4, over `records` (keyed by the id's first byte), sending into `sent`. */
function attesterOver(records: Map<string, CredentialRecord>, sent: Transaction[], firstNonce: bigint, count?: (r: string) => void): Attester {
  return new Attester({
    chainId: 'chain',
    seed: me.seed,
    publicKey: me.publicKey,
    credential: async (id) => records.get(toHex(id.subarray(0, 1))),
    validatorSet: async () => set(4),
    nextNonce: async () => firstNonce + BigInt(sent.length),
    submit: async (tx) => void sent.push(tx),
    log: createLogger({ level: 'silent' }),
    ...(count ? { count } : {}),
  });
}

t.test('the attester sends one signed attestation per new request, with consecutive nonces, and counts outcomes', async (t) => {
  const sent: Transaction[] = [];
  const counts: string[] = [];
  const records = new Map([
    ['01', { ...request, id: new Uint8Array(16).fill(1) }],
    ['02', { ...request, id: new Uint8Array(16).fill(2) }],
    ['03', { ...request, id: new Uint8Array(16).fill(3), status: 'expired' } as CredentialRecord],
  ]);
  const attester = attesterOver(records, sent, 5n, (r) => counts.push(r));
  const event = (n: number) => ({ type: 'CredentialRequested' as const, id: formatCredentialId(new Uint8Array(16).fill(n)), issuer: 'i', subject: 's', deadline_height: 9 });
  attester.onCommitted({ block: {} as CommittedBlock['block'], seq: 1, receipts: [{ events: [event(1), event(3)] }, { events: [{ type: 'DidCreated', did: 'd' }, event(2)] }] as unknown as CommittedBlock['receipts'] });
  await attester.idle();
  t.same(counts, ['sent', 'skipped', 'sent']);
  t.same(sent.map((tx) => tx.nonce), [5n, 6n]);
  t.ok(sent.every((tx) => tx.payload.kind === 'CredentialAttest' && verifyTransactionSignature('chain', tx)));
});

t.test('resume attests the pending requests this validator still owes, and only those', async (t) => {
  const sent: Transaction[] = [];
  const mine = { validator: self.address, vrfProof: new Uint8Array(80), signature: new Uint8Array(64) };
  const records = new Map([
    ['01', { ...request, id: new Uint8Array(16).fill(1) }],
    ['02', { ...request, id: new Uint8Array(16).fill(2), attestations: [mine] }],
    ['03', { ...request, id: new Uint8Array(16).fill(3), status: 'registered' } as CredentialRecord],
  ]);
  const attester = attesterOver(records, sent, 0n);
  attester.resume([1, 2, 3].map((n) => formatCredentialId(new Uint8Array(16).fill(n))));
  await attester.idle();
  t.equal(sent.length, 1, 'one attestation: the others are attested already or no longer pending');
  t.same(sent[0]!.payload.kind === 'CredentialAttest' && Array.from(sent[0]!.payload.credentialId), Array.from(new Uint8Array(16).fill(1)));
});
