import { toHex } from '../../../../node/protocol/bytes.js';
import { parseCredentialId } from '../../../../node/protocol/credential-id.js';
import type { CredentialRecord } from '../../../../node/protocol/credential-records.js';
import { didForIdentifier } from '../../../../node/protocol/did.js';
import type { Receipt } from '../../../../node/protocol/receipt.js';
import type { Transaction } from '../../../../node/protocol/transaction.js';
import type { CredentialRow, DidRow, IssuerStats, TxRow } from '../../rows.js';
import type { Batch } from './layout.js';

/**
 * DIDs and credentials, from the events in a transaction's receipt:
 *
 *   did:<did>                        DID row;  didseq:<pos> and didtime:<ms 16>:<pos> -> did
 *   cred:<urn>                       credential row (from its registration on)
 *   credseq:<pos>, credissuer:<did>:<pos>, credsubject:<did>:<pos>, credtype:<type>:<pos>,
 *   creddid:<did>:<pos>              -> urn (creddid holds both the issuer and the subject)
 *   issuer:<did>                     issuer stats; issuerseq:<pos> -> did, at its first credential
 *
 * A credential row appears when the credential is registered, with its fields from chain state
 * (they never change after registration), and turns revoked at its CredentialRevoked event.
 */

interface Source {
  network: string;
  tx: Transaction;
  receipt: Receipt;
  row: TxRow;
  pos: string;
  at: string;
  credential(id: Uint8Array): Promise<CredentialRecord | undefined>;
}

/** What a transaction added: the new DID and credential rows (the WebSocket feed sends them). */
export interface IdentityAdded {
  dids: DidRow[];
  credentials: CredentialRow[];
}

export async function indexIdentity(b: Batch, s: Source): Promise<IdentityAdded> {
  const added: IdentityAdded = { dids: [], credentials: [] };
  for (const e of s.receipt.events) {
    switch (e.type) {
      case 'DidCreated': {
        const row: DidRow = {
          did: e.did,
          controller: e.did,
          public_key: toHex(s.tx.senderPubkey),
          active: true,
          created_ms: s.row.timestamp_ms,
          updated_ms: s.row.timestamp_ms,
          tx_hash: s.row.hash,
          created_at: s.at,
        };
        b.put(`did:${e.did}`, row);
        added.dids.push(row);
        b.put(`didseq:${s.pos}`, e.did);
        b.put(`didtime:${s.row.timestamp_ms.padStart(16, '0')}:${s.pos}`, e.did);
        await b.add('dids');
        await b.add('dids_active');
        break;
      }
      case 'DidDeactivated':
        await updateDid(b, e.did, s, { active: false, public_key: null });
        await b.add('dids_active', -1);
        break;
      case 'DidRecovered':
        await updateDid(b, e.did, s, { public_key: e.new_public_key });
        break;
      case 'CredentialRegistered':
        added.credentials.push(await registered(b, e.id, s));
        break;
      case 'CredentialRevoked':
        await revoked(b, e.id, s);
        break;
      default:
        break;
    }
  }
  return added;
}

async function updateDid(b: Batch, did: string, s: Source, change: Partial<DidRow>): Promise<void> {
  const row = await b.get<DidRow>(`did:${did}`);
  if (row) b.put(`did:${did}`, { ...row, ...change, updated_ms: s.row.timestamp_ms });
}

async function registered(b: Batch, urn: string, s: Source): Promise<CredentialRow> {
  const c = await s.credential(parseCredentialId(urn));
  if (!c) throw new Error(`credential ${urn} was registered, but chain state has no record of it`);
  const issuer = didForIdentifier(s.network, c.issuer);
  const subject = didForIdentifier(s.network, c.subject);
  const row: CredentialRow = {
    credential_id: urn,
    issuer_did: issuer,
    subject_did: subject,
    credential_type: c.credentialType,
    hash: toHex(c.hash),
    issued_ms: s.row.timestamp_ms,
    revoked: false,
    revoked_ms: null,
    tx_hash: toHex(c.txHash),
  };
  b.put(`cred:${urn}`, row);
  for (const [index, value] of [
    ['credseq', ''],
    ['credissuer', issuer],
    ['credsubject', subject],
    ['credtype', c.credentialType],
    ['creddid', issuer],
    ['creddid', subject],
  ] as const) {
    const name = value === '' ? index : `${index}:${value}`;
    b.put(`${name}:${s.pos}`, urn);
    await b.add(name === 'credseq' ? 'credentials' : name);
  }
  await b.add('credentials_active');
  const stats = await b.get<IssuerStats>(`issuer:${issuer}`);
  if (!stats) {
    b.put(`issuerseq:${s.pos}`, issuer);
    await b.add('issuers');
  }
  b.put(`issuer:${issuer}`, {
    issuer_did: issuer,
    credentials_issued: (stats?.credentials_issued ?? 0) + 1,
    active_credentials: (stats?.active_credentials ?? 0) + 1,
    revoked_credentials: stats?.revoked_credentials ?? 0,
    first_issued: stats?.first_issued ?? s.row.timestamp_ms,
    last_issued: s.row.timestamp_ms,
  } satisfies IssuerStats);
  return row;
}

async function revoked(b: Batch, urn: string, s: Source): Promise<void> {
  const row = await b.get<CredentialRow>(`cred:${urn}`);
  if (!row) return;
  b.put(`cred:${urn}`, { ...row, revoked: true, revoked_ms: s.row.timestamp_ms });
  await b.add('credentials_active', -1);
  const stats = await b.get<IssuerStats>(`issuer:${row.issuer_did}`);
  if (stats) b.put(`issuer:${row.issuer_did}`, { ...stats, active_credentials: stats.active_credentials - 1, revoked_credentials: stats.revoked_credentials + 1 });
}
