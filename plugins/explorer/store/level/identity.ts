import { parseCredentialId } from '../../../../node/protocol/credential-id.js';
import type { CredentialRecord } from '../../../../node/protocol/credential-records.js';
import type { Receipt } from '../../../../node/protocol/receipt.js';
import type { Transaction } from '../../../../node/protocol/transaction.js';
import { credentialRegisteredRow, credentialRevoked, didChange, didCreatedRow, issuerRegistered, issuerRevoked } from '../../event-rows.js';
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
        const row = didCreatedRow(e, s.tx, s.row, s.at);
        b.put(`did:${e.did}`, row);
        added.dids.push(row);
        b.put(`didseq:${s.pos}`, e.did);
        b.put(`didtime:${s.row.timestamp_ms.padStart(16, '0')}:${s.pos}`, e.did);
        await b.add('dids');
        await b.add('dids_active');
        break;
      }
      case 'DidDeactivated':
      case 'DidRecovered': {
        const row = await b.get<DidRow>(`did:${e.did}`);
        if (row) b.put(`did:${e.did}`, { ...row, ...didChange(e, s.row) });
        if (e.type === 'DidDeactivated') await b.add('dids_active', -1);
        break;
      }
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

async function registered(b: Batch, urn: string, s: Source): Promise<CredentialRow> {
  const row = credentialRegisteredRow(s.network, urn, await s.credential(parseCredentialId(urn)), s.row);
  const { issuer_did: issuer, subject_did: subject } = row;
  b.put(`cred:${urn}`, row);
  for (const [index, value] of [
    ['credseq', ''],
    ['credissuer', issuer],
    ['credsubject', subject],
    ['credtype', row.credential_type],
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
  b.put(`issuer:${issuer}`, issuerRegistered(issuer, stats, s.row));
  return row;
}

async function revoked(b: Batch, urn: string, s: Source): Promise<void> {
  const row = await b.get<CredentialRow>(`cred:${urn}`);
  if (!row) return;
  b.put(`cred:${urn}`, { ...row, ...credentialRevoked(s.row) });
  await b.add('credentials_active', -1);
  const stats = await b.get<IssuerStats>(`issuer:${row.issuer_did}`);
  if (stats) b.put(`issuer:${row.issuer_did}`, { ...stats, ...issuerRevoked(stats) });
}
