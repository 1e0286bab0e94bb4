import t from 'tap';
import { generateSeed } from '../../../../node/crypto/ed25519.js';
import { LedgerError } from '../../../../node/errors.js';
import { createLogger } from '../../../../node/logging.js';
import type { ChainView } from '../../../../node/plugins/chain-view.js';
import { credentialHash, parseCredential } from '../../../../node/protocol/credential-document.js';
import { REVOCATION_LIST_ENTRIES } from '../../../../node/protocol/revocation-list.js';
import { transactionFromJson } from '../../../../node/protocol/transaction.js';
import { parseJson } from '../../../../node/protocol/json.js';
import { openDatabase } from '../../../../node/state/db.js';
import { evidenceDigest, isoSecond, jurisdictionOf, kycCredentialBody } from '../../../../plugins/kyc/issuance/credential-body.js';
import { loadServiceKey } from '../../../../plugins/common/chain/service-key.js';
import { JobStore } from '../../../../plugins/kyc/issuance/jobs.js';
import { TxSender, type SentTx } from '../../../../plugins/common/chain/tx-sender.js';
import { buildTransfer } from '../../../../node/client/builder.js';
import { PluginDb } from '../../../../plugins/common/store/tables.js';
import { passedSession } from './harness.js';
import { ISSUER_KEY_TABLE, ISSUER_SEED_ROW, ISSUER_SIGNER, ISSUER_TX_TABLE } from '../../../../plugins/kyc/issuance/tables.js';
import { keySource, testSecret } from '../../common/secrets/fixtures.js';

/** The issuance parts that need no chain: the key, the credential body, jobs, and nonce and position allocation. */

async function kycDb(t: { teardown(fn: () => unknown): void }) {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  return new PluginDb(db.pluginStore('kyc'));
}

t.test('the issuer key: adopts the service key once, then always the stored one', async (t) => {
  const db = await kycDb(t);
  const service = generateSeed();
  const secret = await testSecret();
  const first = await loadServiceKey(db, ISSUER_SEED_ROW, 'testnet', keySource(secret, service));
  t.equal(first.origin, 'service-key');
  t.same(first.seed, service);
  t.match(first.did, new RegExp(`^did:ledger:testnet:${first.address}$`));
  const again = await loadServiceKey(db, ISSUER_SEED_ROW, 'testnet', keySource(secret, generateSeed()));
  t.same(again.seed, service, 'a later service key does not replace the stored one');
  const other = await kycDb(t);
  const generated = await loadServiceKey(other, ISSUER_SEED_ROW, 'testnet', keySource(secret));
  t.equal(generated.origin, 'generated');
  t.ok(await other.json(ISSUER_KEY_TABLE).get('issuer'), 'the generated seed is stored');
});

t.test('the KYCCredential body: level, attributes, dates, status and jurisdiction', async (t) => {
  const session = passedSession('ver_x', 'org_A', 'did:ledger:testnet:3JQmMsGbVaLaZTtzMmPd41x8mrVb', 3);
  const issuedMs = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
  const body = kycCredentialBody({
    uuid: '6f1c2a3b-0000-4000-8000-000000000001',
    session,
    issuer: { did: 'did:ledger:testnet:3JQmMsGbVaLaZTtzMmPd41x8mrVb', name: 'Test KYC' },
    jurisdiction: jurisdictionOf(session, 'XX'),
    issuedMs,
    validityDays: 365,
    listUrl: 'http://kyc.example/v1/revocation-lists/0',
    index: 7,
  });
  t.match(body, {
    id: 'urn:ledger:credential:6f1c2a3b-0000-4000-8000-000000000001',
    type: ['VerifiableCredential', 'KYCCredential'],
    issuanceDate: '2026-01-02T03:04:05Z',
    expirationDate: '2027-01-02T03:04:05Z',
    credentialSubject: { kycLevel: 3, verifiedAttributes: ['governmentId', 'liveness', 'address'], jurisdiction: 'XX' },
    credentialStatus: { revocationListIndex: '7', revocationListCredential: 'http://kyc.example/v1/revocation-lists/0' },
  });
  t.equal((await credentialHash(body)).length, 32);
  t.equal(isoSecond(issuedMs), '2026-01-02T03:04:05Z');
  const german = { ...session, documents: [{ ...session.documents[0]!, extractedData: { nationality: 'de' } }] };
  t.equal(jurisdictionOf(german, 'XX'), 'DE', 'an alpha-2 nationality is the jurisdiction');
  t.same(evidenceDigest(session), evidenceDigest({ ...session }), 'the evidence digest is deterministic');
  t.notSame(evidenceDigest(session), evidenceDigest({ ...session, sandbox: false }), 'and covers the sandbox flag');
  t.throws(() => parseCredential({ ...body, proof: {} }), 'a body is not yet a credential');
});

t.test('jobs: one per session, unfinished in arrival order', async (t) => {
  const store = new JobStore(await kycDb(t));
  const a = passedSession('ver_a', 'org_A', 'did:ledger:testnet:3JQmMsGbVaLaZTtzMmPd41x8mrVb');
  const b = passedSession('ver_b', 'org_A', 'did:ledger:testnet:3JQmMsGbVaLaZTtzMmPd41x8mrVb');
  t.equal(await store.add(b, 1000), true);
  t.equal(await store.add(a, 2000), true);
  t.equal(await store.add(b, 3000), false, 'idempotent');
  t.same((await store.unfinished()).map((j) => j.sessionId), ['ver_b', 'ver_a']);
  t.equal(await store.countUnfinished(), 2);
});

/** A fixed committed state: the issuer's account nonce and next revocation position. */
function fixedChain(state: { nonce: bigint; position: number; receipts?: Set<string> }): ChainView {
  return {
    account: async () => ({ balance: 10n ** 12n, nonce: state.nonce }),
    nextRevocationPosition: async () => ({ list: Math.floor(state.position / REVOCATION_LIST_ENTRIES), index: state.position % REVOCATION_LIST_ENTRIES }),
    receipt: async (hash: string) => (state.receipts?.has(hash) ? ({ tx_hash: hash, status: 'success' } as never) : undefined),
  } as unknown as ChainView;
}

t.test('nonces and revocation positions count the issuer’s in-flight transactions', async (t) => {
  const db = await kycDb(t);
  const key = await loadServiceKey(db, ISSUER_SEED_ROW, 'testnet', keySource(await testSecret()));
  const chain = { nonce: 5n, position: REVOCATION_LIST_ENTRIES - 1 };
  const submitted: string[] = [];
  let refuse = false;
  const sender = new TxSender(
    {
      db,
      table: ISSUER_TX_TABLE,
      signer: ISSUER_SIGNER,
      chain: fixedChain(chain),
      chainId: 'test-chain',
      submit: async (json) => {
        if (refuse) throw new LedgerError('INSUFFICIENT_BALANCE', 'no', 'conflict');
        submitted.push(json);
        return 'x';
      },
      log: createLogger({ level: 'silent' }),
      now: () => 0,
    },
    key,
  );
  const build = (positions: Array<{ list: number; index: number } | undefined>) => (nonce: bigint, position: { list: number; index: number } | undefined) => {
    positions.push(position);
    return buildTransfer({ senderPubkey: key.publicKey, nonce, to: key.address, amount: 1n });
  };
  const positions: Array<{ list: number; index: number } | undefined> = [];
  const a = await sender.send({ kind: 'CredentialRequest', ref: 'a', withPosition: true, build: build(positions) });
  const b = await sender.send({ kind: 'CredentialRequest', ref: 'b', withPosition: true, build: build(positions) });
  const c = await sender.send({ kind: 'CredentialRevoke', ref: 'c', build: build(positions) });
  t.same([a.nonce, b.nonce, c.nonce], ['5', '6', '7']);
  t.same(positions, [{ list: 0, index: REVOCATION_LIST_ENTRIES - 1 }, { list: 1, index: 0 }, undefined], 'positions run on across lists');
  t.equal(transactionFromJson(parseJson(submitted[1]!)).tx.nonce, 6n, 'the signed transaction carries its nonce');

  refuse = true;
  await t.rejects(sender.send({ kind: 'CredentialRevoke', ref: 'd', build: build(positions) }), { code: 'INSUFFICIENT_BALANCE' });
  const stored: SentTx[] = [];
  for await (const [, v] of db.json<SentTx>(ISSUER_TX_TABLE).entries()) stored.push(v);
  t.same(stored.map((s) => s.nonce), ['5', '6', '7'], 'a refused transaction is not kept');

  refuse = false;
  chain.nonce = 7n; // a and b were included
  chain.position = REVOCATION_LIST_ENTRIES + 1;
  submitted.length = 0;
  t.equal(await sender.resubmitPending(), 1, 'only the transaction the chain has not included is sent again');
  t.equal(transactionFromJson(parseJson(submitted[0]!)).tx.nonce, 7n);
  const d = await sender.send({ kind: 'CredentialRequest', ref: 'd', withPosition: true, build: build(positions) });
  t.equal(d.nonce, '8');
  t.same(positions.at(-1), { list: 1, index: 1 });
});
