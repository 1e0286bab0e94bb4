import t from 'tap';
import type { CommittedBlock } from '../../../node/chain/app.js';
import { keyPairFromSeed, type Ed25519KeyPair } from '../../../node/crypto/ed25519.js';
import { addressBytesFromPublicKey } from '../../../node/protocol/address.js';
import { formatCredentialId, parseCredentialId } from '../../../node/protocol/credential-id.js';
import type { CredentialRecord } from '../../../node/protocol/credential-records.js';
import { didForPublicKey } from '../../../node/protocol/did.js';
import { toHex } from '../../../node/protocol/bytes.js';
import type { Payload } from '../../../node/protocol/payloads.js';
import { SUCCESS, type ReceiptEvent } from '../../../node/protocol/receipt.js';
import { migrate } from '../../../plugins/common/sql/migrate.js';
import { openPglite } from '../../../plugins/common/sql/pglite.js';
import type { SqlDatabase } from '../../../plugins/common/sql/types.js';
import type { Indexed } from '../../../plugins/explorer/rows.js';
import { EXPLORER_MIGRATIONS } from '../../../plugins/explorer/store/sql/schema.js';
import { SqlIndexer } from '../../../plugins/explorer/store/sql/writer.js';
import { committedChain, type TxSpec } from './committed-chain.js';

/**
 * The SQL index, as indexer.test.ts checks the LevelDB one: the same chain indexed in one batch,
 * in groups (a new writer for each, reading the pending deadlines back) and block by block leaves
 * every table with the same rows, apart from when each row was indexed. The chain has transfers
 * (a self-transfer, a failure), a DID created, recovered and deactivated, credentials registered
 * and revoked, and verification requests answered, finalized and expired.
 */

const CHAIN = 'sql-indexer-test';
const NETWORK = 'testnet';
const [a, b, c] = [1, 2, 3].map((n) => keyPairFromSeed(new Uint8Array(32).fill(n))) as [Ed25519KeyPair, Ed25519KeyPair, Ed25519KeyPair];
const didA = didForPublicKey(NETWORK, a.publicKey);
const didB = didForPublicKey(NETWORK, b.publicKey);
const didC = didForPublicKey(NETWORK, c.publicKey);

const transfer = (from: Ed25519KeyPair, to: Ed25519KeyPair, status = SUCCESS, events: ReceiptEvent[] = []): TxSpec => ({ from, payload: { kind: 'Transfer', to: addressBytesFromPublicKey(to.publicKey), amount: 5n }, status, events });

const credentialIds = [1, 2, 3].map((n) => formatCredentialId(new Uint8Array(16).fill(n)));
/** what chain state holds for each registered credential: a issues to b, b to c, a to itself */
const records = new Map(
  [
    [a, b, 'KYCCredential'],
    [b, c, 'EmailCredential'],
    [a, a, 'KYCCredential'],
  ].map(([issuer, subject, type], i) => [
    toHex(parseCredentialId(credentialIds[i])),
    { issuer: addressBytesFromPublicKey((issuer as Ed25519KeyPair).publicKey), subject: addressBytesFromPublicKey((subject as Ed25519KeyPair).publicKey), credentialType: type, hash: new Uint8Array(32).fill(i + 1), txHash: new Uint8Array(32).fill(i + 10) } as unknown as CredentialRecord,
  ]),
);
const registered = (i: number): ReceiptEvent => ({ type: 'CredentialRegistered', id: credentialIds[i]!, consensus_round: i });

let nonce = 0;
function request(id: string, deadline: number): TxSpec {
  const payload: Payload = {
    kind: 'VerificationRequest',
    request: {
      version: '1.0',
      requestId: id,
      timestamp: 1_000_000,
      requester: { did: didA, purpose: 'account opening' },
      subject: { did: didB },
      requiredClaims: [{ type: 'KYCCredential', constraints: { minimumLevel: 2 }, acceptZKProof: true }],
      fee: '100000',
      chainId: CHAIN,
      nonce: nonce++,
    },
  };
  return { from: a, payload, events: [{ type: 'VerificationRequested', request_id: id, requester: didA, subject: didB, deadline_height: deadline }] };
}

const BLOCKS: CommittedBlock[] = committedChain(
  CHAIN,
  [
    [],
    [transfer(a, b), transfer(b, a)],
    [{ from: c, payload: { kind: 'DidCreate', service: [] }, events: [{ type: 'DidCreated', did: didC }] }, transfer(a, a)],
    [transfer(a, b, SUCCESS, [registered(0)]), request('req-a', 5), request('req-b', 8)],
    [transfer(b, c, SUCCESS, [registered(1), { type: 'VerificationAnswered', request_id: 'req-a', validator: 'v', answers: 1 }])],
    [transfer(c, a, 'failed: insufficient balance'), transfer(c, b, SUCCESS, [{ type: 'DidRecovered', did: didC, new_public_key: 'ab'.repeat(32) }])],
    [transfer(a, c, SUCCESS, [{ type: 'CredentialRevoked', id: credentialIds[0]!, status_list: 0, status_index: 0 }, registered(2)])],
    [transfer(b, a, SUCCESS, [{ type: 'VerificationAnswered', request_id: 'req-b', validator: 'v', answers: 2 }, { type: 'VerificationFinalized', request_id: 'req-b', verified: true, consensus_round: 7 }])],
    [transfer(c, b, SUCCESS, [{ type: 'DidDeactivated', did: didC }]), request('req-c', 12)],
    [],
    [transfer(a, b), transfer(a, b), transfer(a, b)],
  ],
  { proposer: addressBytesFromPublicKey(a.publicKey), height: (seq) => seq, timestampMs: (seq) => 1_000_000 + seq * 1_000, sign: false },
);

/** every table of the explorer schema, its rows in key order, without the columns that say when a row was indexed */
async function dump(db: SqlDatabase): Promise<Record<string, unknown[]>> {
  const { rows: columns } = await db.query<{ table_name: string; column_name: string; data_type: string }>(
    "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'explorer' ORDER BY table_name, ordinal_position",
  );
  const tables = new Map<string, string[]>();
  for (const col of columns) {
    if (!tables.has(col.table_name)) tables.set(col.table_name, []);
    if (col.data_type !== 'timestamp with time zone') tables.get(col.table_name)!.push(col.column_name);
  }
  const out: Record<string, unknown[]> = {};
  for (const [table, names] of tables) {
    const list = names.map((n) => `${n}::text AS ${n}`).join(', ');
    out[table] = (await db.query(`SELECT ${list} FROM explorer.${table} ORDER BY ${names.map((_, i) => i + 1).join(', ')}`)).rows;
  }
  return out;
}

const withoutTimes = (rows: Indexed[]): unknown => JSON.parse(JSON.stringify(rows, (k, v: unknown) => (k === 'created_at' ? undefined : typeof v === 'bigint' ? String(v) : v)));

async function indexed(groups: number[][]): Promise<{ tables: Record<string, unknown[]>; rows: Indexed[] }> {
  const db = await openPglite(undefined, { unavailableCode: 'TEST_PGLITE_UNAVAILABLE' });
  try {
    await migrate(db, 'explorer', EXPLORER_MIGRATIONS);
    const rows: Indexed[] = [];
    for (const g of groups) {
      const writer = new SqlIndexer({ db, network: NETWORK, credential: (id) => Promise.resolve(records.get(toHex(id))) });
      rows.push(...(await writer.applyAll(g.map((seq) => BLOCKS[seq]!))));
    }
    return { tables: await dump(db), rows };
  } finally {
    await db.close();
  }
}

const seqs = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

t.test('one batch, groups and block by block leave the same rows in every table', async (t) => {
  const one = await indexed(seqs(0, 10).map((s) => [s]));
  const all = await indexed([seqs(0, 10)]);
  const groups = await indexed([seqs(0, 3), seqs(4, 4), seqs(5, 10)]);
  t.same(all.tables, one.tables, 'one batch');
  t.same(groups.tables, one.tables, 'three groups, a new writer each');
  t.same(withoutTimes(all.rows), withoutTimes(one.rows), 'the rows the feed gets');

  const { tables } = one;
  t.same(Object.keys(tables).sort(), ['address_transactions', 'addresses', 'blocks', 'credentials', 'dids', 'index_cursor', 'index_writer', 'issuers', 'totals', 'transactions', 'validators', 'verification_requests']);
  t.same(tables.index_cursor, [{ one: 'true', next_seq: '11' }]);
  t.equal(tables.blocks!.length, 11);
  t.equal(tables.transactions!.length, 17);
  const totals = Object.fromEntries((tables.totals as Array<{ name: string; value: string }>).map((r) => [r.name, r.value]));
  t.match(totals, { blocks: '11', transactions: '17', addresses: '3', senders: '3', dids: '1', credentials: '3', credentials_active: '2', issuers: '2', verifications: '3', verifications_final: '1', verifications_expired: '1', verifications_pending: '1', verifications_verified: '1' });
  t.equal(totals.dids_active ?? '0', '0', 'the DID was deactivated');
  t.match(tables.dids, [{ did: didC, active: 'false', public_key: null }]);
  t.match(
    (tables.verification_requests as Array<{ request_id: string }>).map((r) => r),
    [
      { request_id: 'req-a', status: 'expired', answers: '1' },
      { request_id: 'req-b', status: 'final', verified: 'true', answers: '2' },
      { request_id: 'req-c', status: 'pending' },
    ],
  );
  t.match(tables.issuers, [
    { issuer_did: didA, credentials_issued: '2', active_credentials: '1', revoked_credentials: '1' },
    { issuer_did: didB, credentials_issued: '1', active_credentials: '1', revoked_credentials: '0' },
  ]);
});
