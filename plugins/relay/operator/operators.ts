import { generateKeyPairSync } from 'node:crypto';
import { KeyedSerial } from '../../common/http/router.js';
import type { DocumentRepo } from '../store/types.js';
import { didKeyFromEd25519 } from '../wire/dids/did-key.js';
import { API_KEY_KIND, OPERATOR_KIND, type ApiKeyRecord, type OperatorRecord } from './auth.js';

/**
 * Every operator has a DID (seed 000 types `operator.did` as a string): the id token's `did`
 * claim when it has one, otherwise a `did:key` minted at first login from a fresh Ed25519 key.
 * Nothing in the relay signs as the operator, so only the public DID is kept: the private key
 * is dropped as soon as the DID is made. A record written before operators had DIDs gets one
 * the first time it is read here (its next login, /v1/team, /v1/auth/me), once: the read and
 * the write run one after another per operator.
 */

export function mintOperatorDid(): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x!;
  return didKeyFromEd25519(new Uint8Array(Buffer.from(x, 'base64url')));
}

/** a `did` claim usable as the operator's DID, else null */
export function didClaim(value: unknown): string | null {
  return typeof value === 'string' && /^did:[a-z0-9]+:\S+$/.test(value) && value.length <= 2000 ? value : null;
}

/** how many `createdBy` links an API key's creator is followed through (a key made by a key) */
const MAX_KEY_CHAIN = 8;

export class OperatorDirectory {
  private readonly serial = new KeyedSerial();

  constructor(private readonly docs: DocumentRepo) {}

  /** Writes the record `make(known)` builds, under the operator's lock; `did` is never left null. */
  async upsert(tenantId: string, id: string, make: (known: OperatorRecord | undefined) => OperatorRecord): Promise<{ record: OperatorRecord; first: boolean }> {
    return this.serial.run(`${tenantId}\n${id}`, async () => {
      const known = await this.docs.get<OperatorRecord>(tenantId, OPERATOR_KIND, id);
      const made = make(known);
      const record = { ...made, did: made.did ?? known?.did ?? mintOperatorDid() };
      await this.docs.put(tenantId, OPERATOR_KIND, id, record);
      return { record, first: known === undefined };
    });
  }

  /** The operator's record, with a DID minted and stored if it had none; undefined if unknown. */
  async get(tenantId: string, id: string): Promise<(OperatorRecord & { did: string }) | undefined> {
    const known = await this.docs.get<OperatorRecord>(tenantId, OPERATOR_KIND, id);
    if (!known) return undefined;
    if (known.did !== null) return known as OperatorRecord & { did: string };
    return (await this.upsert(tenantId, id, (k) => k ?? known)).record as OperatorRecord & { did: string };
  }

  /** Every operator of the tenant, each with a DID. */
  async list(tenantId: string): Promise<Array<OperatorRecord & { did: string }>> {
    const all = await this.docs.list<OperatorRecord>(tenantId, OPERATOR_KIND);
    const withDids = await Promise.all(all.map((o) => (o.did !== null ? (o as OperatorRecord & { did: string }) : this.get(tenantId, o.id))));
    return withDids.filter((o): o is OperatorRecord & { did: string } => o !== undefined);
  }

  /** The operator who created an API key (through keys that created keys); undefined if none is recorded. */
  async creatorOf(tenantId: string, keyId: string): Promise<(OperatorRecord & { did: string }) | undefined> {
    let id = keyId;
    for (let i = 0; i < MAX_KEY_CHAIN; i++) {
      const key = await this.docs.get<ApiKeyRecord>(tenantId, API_KEY_KIND, id);
      if (!key) return this.get(tenantId, id);
      id = key.createdBy;
    }
    return undefined;
  }
}
