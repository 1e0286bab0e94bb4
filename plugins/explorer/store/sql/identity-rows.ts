import { parseCredentialId } from '../../../../node/protocol/credential-id.js';
import { credentialRegisteredRow, credentialRevoked, didChange, didCreatedRow, issuerRegistered, issuerRevoked } from '../../event-rows.js';
import type { CredentialRow, DidRow } from '../../rows.js';
import type { Batch, Source } from './batch.js';
import { credentialRow, didRow } from './tables.js';

/**
 * DIDs, credentials and issuers, from a transaction's receipt events, into the batch's rows; the
 * rows come from event-rows.ts, this adds the SQL index's positions and totals.
 */
export async function indexIdentity(b: Batch, s: Source, dids: DidRow[], credentials: CredentialRow[]): Promise<void> {
  const position = { block_seq: s.seq, tx_index: s.row.tx_index };
  for (const e of s.receipt.events) {
    switch (e.type) {
      case 'DidCreated': {
        const row = { ...didCreatedRow(e, s.tx, s.row, s.at), ...position };
        b.dids.set(e.did, row);
        dids.push(didRow(row));
        b.add('dids');
        b.add('dids_active');
        break;
      }
      case 'DidDeactivated':
      case 'DidRecovered': {
        const row = await b.dids.get(e.did);
        if (row) b.dids.set(e.did, Object.assign(row, didChange(e, s.row)));
        if (e.type === 'DidDeactivated') b.add('dids_active', -1);
        break;
      }
      case 'CredentialRegistered':
        credentials.push(await registered(b, e.id, s, position));
        break;
      case 'CredentialRevoked':
        await revoked(b, e.id, s);
        break;
      default:
        break;
    }
  }
}

async function registered(b: Batch, urn: string, s: Source, position: { block_seq: number; tx_index: number }): Promise<CredentialRow> {
  const row = { ...credentialRegisteredRow(b.d.network, urn, await b.d.credential(parseCredentialId(urn)), s.row), ...position };
  b.credentials.set(urn, row);
  b.add('credentials');
  b.add('credentials_active');
  b.add(`credentials_of_type:${row.credential_type}`);
  const issuer = row.issuer_did;
  const stats = await b.issuers.get(issuer);
  if (!stats) b.add('issuers');
  b.issuers.set(issuer, {
    ...issuerRegistered(issuer, stats, s.row),
    first_block_seq: stats?.first_block_seq ?? s.seq,
    first_tx_index: stats?.first_tx_index ?? s.row.tx_index,
  });
  return credentialRow(row);
}

async function revoked(b: Batch, urn: string, s: Source): Promise<void> {
  const row = await b.credentials.get(urn);
  if (!row) return;
  b.credentials.set(urn, Object.assign(row, credentialRevoked(s.row)));
  b.add('credentials_active', -1);
  const stats = await b.issuers.get(row.issuer_did);
  if (stats) b.issuers.set(row.issuer_did, Object.assign(stats, issuerRevoked(stats)));
}
