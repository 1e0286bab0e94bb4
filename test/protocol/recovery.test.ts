import t from 'tap';
import { recoveryMessage, signRecovery, verifyRecovery, type RecoveryTarget } from '../../node/protocol/recovery.js';
import { concatBytes, ByteWriter, fromHex, toHex, utf8 } from '../../node/protocol/bytes.js';
import { loadVectors } from '../fixtures/vectors.js';

const V = loadVectors('ledger-recovery.json');
const target: RecoveryTarget = { chainId: V.chain_id, did: V.did, newPublicKey: fromHex(V.new_public_key), versionId: V.version_id };
const guardianKey = fromHex(V.guardian_public_key);
const signature = fromHex(V.signature);

t.test('the vector of docs/protocol.md: message and signature', async (t) => {
  t.equal(toHex(recoveryMessage(target)), V.message);
  const str = (s: string) => new ByteWriter().str(s).finish();
  const pieces = concatBytes(utf8('ledger-recovery-v1'), str(V.chain_id), str(V.did), target.newPublicKey, new ByteWriter().u64(1n).finish());
  t.equal(toHex(pieces), V.message, 'piece by piece as documented');
  t.equal(toHex(signRecovery(fromHex(V.guardian_secret_key), target)), V.signature, 'Ed25519 is deterministic');
  t.ok(verifyRecovery(guardianKey, signature, target));
});

t.test('a signature is bound to the chain, the DID, the new key and the version', async (t) => {
  const changed: Array<[string, RecoveryTarget]> = [
    ['another chain', { ...target, chainId: 'ledger-mainnet-1' }],
    ['another DID', { ...target, did: V.guardian_did }],
    ['another new key', { ...target, newPublicKey: guardianKey }],
    ['a later version (a replay after the recovery)', { ...target, versionId: 2 }],
  ];
  for (const [what, other] of changed) t.notOk(verifyRecovery(guardianKey, signature, other), what);
  t.notOk(verifyRecovery(target.newPublicKey, signature, target), 'a signer who is not the guardian');
});

t.test('malformed input: false or a clear error, never a crash', async (t) => {
  t.notOk(verifyRecovery(guardianKey, signature.subarray(1), target), 'short signature');
  t.notOk(verifyRecovery(guardianKey.subarray(1), signature, target), 'short key');
  t.notOk(verifyRecovery(guardianKey, signature, { ...target, newPublicKey: new Uint8Array(31) }), 'a short new key does not verify');
  t.throws(() => recoveryMessage({ ...target, newPublicKey: new Uint8Array(33) }), { code: 'BAD_PUBLIC_KEY' });
  t.throws(() => recoveryMessage({ ...target, versionId: 0 }), { code: 'BAD_VERSION' });
});
