import { parseDid } from '../protocol/did.js';
import type { RevocationList } from '../protocol/revocation-list.js';

/**
 * `GET /revocation-lists/<issuer did>/<list>`: an issuer's revocation list as a
 * RevocationList2020Credential whose `encodedList` standard verifiers read (GZIP, base64url, bit 0
 * the most significant bit of byte 0; docs/protocol.md, "Revocation lists"). It carries no
 * `proof`: the node cannot sign for the issuer; the list's authority is the chain state it is
 * read from, at the height the response names.
 */

export const REVOCATION_LIST_PATH = /^\/revocation-lists\/([^/]+)\/(\d{1,10})$/;
export const REVOCATION_LIST_CONTEXT = ['https://www.w3.org/2018/credentials/v1', 'https://w3id.org/vc-revocation-list-2020/v1'];

export interface RevocationListDeps {
  network: string;
  list(issuer: Uint8Array, n: number): Promise<RevocationList | undefined>;
  /** the committed head: the list is as of this block */
  head(): Promise<{ height: number; timestampMs: number }>;
}

export type RevocationListAnswer = { status: 200; body: Record<string, unknown> } | { status: 400 | 404; detail: string };

export async function revocationListCredential(deps: RevocationListDeps, didText: string, listText: string, url: string): Promise<RevocationListAnswer> {
  let issuer;
  try {
    issuer = parseDid(didText);
  } catch (err) {
    return { status: 400, detail: (err as Error).message };
  }
  if (issuer.network !== deps.network) return { status: 404, detail: `this node serves network ${deps.network}, not ${issuer.network}` };
  const n = Number(listText);
  const list = Number.isSafeInteger(n) && n <= 0xffffffff ? await deps.list(issuer.identifier, n) : undefined;
  if (!list) return { status: 404, detail: `${issuer.did} has no revocation list ${listText}` };
  const head = await deps.head();
  return {
    status: 200,
    body: {
      '@context': REVOCATION_LIST_CONTEXT,
      id: url,
      type: ['VerifiableCredential', 'RevocationList2020Credential'],
      issuer: issuer.did,
      issuanceDate: new Date(head.timestampMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      credentialSubject: { id: `${url}#list`, type: 'RevocationList2020', encodedList: list.encodedList() },
      ledgerState: { height: head.height },
    },
  };
}
