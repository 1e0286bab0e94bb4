import type { ChainView } from '../../../node/plugins/chain-view.js';
import { RevocationList } from '../../../node/protocol/revocation-list.js';
import type { ServiceKey } from '../../common/chain/service-key.js';

/**
 * The issuer's revocation list `n` as a RevocationList2020Credential read from chain state, the
 * shape the node's own route serves (GZIP, base64url `encodedList`; no `proof`: its authority is
 * the chain state at the height it names). Credentials point their status here.
 */

export const REVOCATION_LIST_CONTEXT = ['https://www.w3.org/2018/credentials/v1', 'https://w3id.org/vc-revocation-list-2020/v1'];

export async function revocationListCredential(chain: ChainView, key: ServiceKey, n: number, url: string): Promise<Record<string, unknown> | undefined> {
  const list = await chain.revocationList(key.identifier, n);
  const head = chain.head();
  // a list exists on chain once something in it was revoked; until then every bit of an allocated list is 0
  const next = await chain.nextRevocationPosition(key.identifier);
  if (!list && n > next.list) return undefined;
  const block = head ? await chain.blockBySeq(head.seq) : undefined;
  return {
    '@context': REVOCATION_LIST_CONTEXT,
    id: url,
    type: ['VerifiableCredential', 'RevocationList2020Credential'],
    issuer: key.did,
    issuanceDate: new Date(block?.header.timestampMs ?? 0).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    credentialSubject: { id: `${url}#list`, type: 'RevocationList2020', encodedList: (list ?? RevocationList.empty()).encodedList() },
    ledgerState: { height: head?.height ?? 0 },
  };
}
