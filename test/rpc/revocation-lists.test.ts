import t from 'tap';
import { didForIdentifier } from '../../node/protocol/did.js';
import { RevocationList } from '../../node/protocol/revocation-list.js';
import { revocationListCredential, REVOCATION_LIST_PATH } from '../../node/rpc/revocation-lists.js';

const ISSUER = new Uint8Array(20).fill(7);
const DID = didForIdentifier('testnet', ISSUER);
const deps = {
  network: 'testnet',
  list: async (_issuer: Uint8Array, n: number) => (n === 0 ? RevocationList.empty().revoke(5) : undefined),
  head: async () => ({ height: 42, timestampMs: Date.UTC(2026, 0, 2, 3, 4, 5, 678) }),
};

t.test('a RevocationList2020Credential with an encodedList standard verifiers read', async (t) => {
  const url = `http://node.example/revocation-lists/${DID}/0`;
  const answer = await revocationListCredential(deps, DID, '0', url);
  if (answer.status !== 200) throw new Error(answer.detail);
  t.match(answer.body, {
    '@context': ['https://www.w3.org/2018/credentials/v1', 'https://w3id.org/vc-revocation-list-2020/v1'],
    id: url,
    type: ['VerifiableCredential', 'RevocationList2020Credential'],
    issuer: DID,
    issuanceDate: '2026-01-02T03:04:05Z',
    credentialSubject: { id: `${url}#list`, type: 'RevocationList2020' },
    ledgerState: { height: 42 },
  });
  const list = RevocationList.fromEncodedList((answer.body.credentialSubject as { encodedList: string }).encodedList);
  t.ok(list.isRevoked(5));
  t.equal(list.count(), 1);
});

t.test('errors: a bad DID is 400, another network, an unknown list or an absurd number 404', async (t) => {
  t.match(await revocationListCredential(deps, 'did:ledger:nope', '0', 'u'), { status: 400 });
  t.match(await revocationListCredential(deps, didForIdentifier('mainnet', ISSUER), '0', 'u'), { status: 404, detail: /serves network testnet/ });
  t.match(await revocationListCredential(deps, DID, '1', 'u'), { status: 404, detail: /has no revocation list 1/ });
  t.match(await revocationListCredential(deps, DID, '9999999999', 'u'), { status: 404 });
  t.notOk(REVOCATION_LIST_PATH.test(`/revocation-lists/${DID}/-1`));
  t.notOk(REVOCATION_LIST_PATH.test(`/revocation-lists/${DID}/12345678901`), 'at most 10 digits');
});
