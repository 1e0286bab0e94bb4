import { invalid } from '../../../node/errors.js';
import type { ChainView } from '../../../node/plugins/chain-view.js';
import { parseCredentialId } from '../../../node/protocol/credential-id.js';
import { fromHex } from '../../../node/protocol/bytes.js';
import { parseDid } from '../../../node/protocol/did.js';
import type { DocumentRepo } from '../store/types.js';

/**
 * Credential gates (seed 000 "Policy"). A gate requires a registered credential of one type,
 * checked against committed chain state: it exists and is registered, is of the type, is not
 * revoked, and its issuer's DID is active. `selective (BBS+)` also needs a BBS proof that
 * verifies with the credential's on-chain BBS key and whose presentation header is the holder's
 * DID, which binds the proof to the agent presenting it. The live path and
 * `POST /v1/policies/test` both call `evaluate`.
 */

export const DISCLOSURES = ['full', 'selective (BBS+)'] as const;
export const APPLIES_TO = ['mediation', 'delivery', 'both'] as const;
export type Disclosure = (typeof DISCLOSURES)[number];
export type AppliesTo = (typeof APPLIES_TO)[number];

export interface Policy {
  id: string;
  tenantId: string;
  name: string;
  credentialType: string;
  disclosure: Disclosure;
  appliesTo: AppliesTo;
  createdAt: string;
}

export const POLICY_KIND = 'policy';

/** What an agent presents: in a mediate-request's body, or as headers of a forward. */
export interface Presentation {
  credentialRef: string;
  bbs?: {
    proof: string;
    header: string;
    disclosed: Array<{ index: number; message: string }>;
    totalMessageCount: number;
  };
}

export interface GateCheck {
  name: 'presented' | 'exists' | 'type' | 'not-revoked' | 'issuer-active' | 'subject' | 'bbs-proof';
  ok: boolean;
  detail?: string;
}

export interface GateVerdict {
  policy: string;
  pass: boolean;
  reason: string | null;
  checks: GateCheck[];
}

export interface BbsVerifier {
  (input: { proof: Uint8Array; publicKey: Uint8Array; header: Uint8Array; presentationHeader: Uint8Array; disclosed: Array<{ index: number; message: Uint8Array }>; totalMessageCount: number }): Promise<boolean>;
}

/** Reads a presentation from untrusted JSON (a DIDComm body or header); undefined when absent. */
export function parsePresentation(ref: unknown, bbs: unknown): Presentation | undefined {
  if (ref === undefined || ref === null) return undefined;
  if (typeof ref !== 'string' || ref.length > 200) throw invalid('PRESENTATION_INVALID', 'credential_ref must be a credential URN (urn:ledger:credential:<uuid>)');
  if (bbs === undefined || bbs === null) return { credentialRef: ref };
  const b = bbs as Record<string, unknown>;
  const hex = (v: unknown, max: number) => typeof v === 'string' && v.length <= max && /^([0-9a-f]{2})*$/i.test(v);
  const disclosed = b.disclosed;
  if (
    typeof b !== 'object' ||
    !hex(b.proof, 65_536) ||
    !hex(b.header ?? '', 8192) ||
    !Array.isArray(disclosed) ||
    disclosed.length > 1024 ||
    !disclosed.every((d) => d && typeof d === 'object' && Number.isInteger((d as { index: unknown }).index) && hex((d as { message: unknown }).message, 65_536)) ||
    !Number.isInteger(b.total_message_count ?? b.totalMessageCount)
  ) {
    throw invalid('PRESENTATION_INVALID', 'credential_presentation must be {proof, header, disclosed: [{index, message}], total_message_count} with hex strings');
  }
  return {
    credentialRef: ref,
    bbs: {
      proof: b.proof as string,
      header: (b.header as string | undefined) ?? '',
      disclosed: disclosed as Array<{ index: number; message: string }>,
      totalMessageCount: (b.total_message_count ?? b.totalMessageCount) as number,
    },
  };
}

export function policyApplies(policy: Policy, stage: 'mediation' | 'delivery'): boolean {
  return policy.appliesTo === 'both' || policy.appliesTo === stage;
}

export class GateService {
  /** each tenant's policies, read once: every forward asks */
  private cache = new Map<string, Promise<Policy[]>>();

  constructor(
    private readonly deps: { docs: DocumentRepo; chain: ChainView; network: string; verifyBbs: BbsVerifier },
  ) {}

  policies(tenantId: string): Promise<Policy[]> {
    let hit = this.cache.get(tenantId);
    if (!hit) {
      hit = this.deps.docs.list<Policy>(tenantId, POLICY_KIND);
      this.cache.set(tenantId, hit);
      hit.catch(() => this.cache.delete(tenantId));
    }
    return hit;
  }

  /** called after the tenant's policies change */
  forget(tenantId: string): void {
    this.cache.delete(tenantId);
  }

  /** Every policy of the tenant that applies to the stage must pass; the first that fails is returned. */
  async enforce(tenantId: string, stage: 'mediation' | 'delivery', presentation: Presentation | undefined, holder: string | null): Promise<GateVerdict | null> {
    let last: GateVerdict | null = null;
    for (const policy of await this.policies(tenantId)) {
      if (!policyApplies(policy, stage)) continue;
      last = await this.evaluate(policy, presentation, holder);
      if (!last.pass) return last;
    }
    return last;
  }

  async evaluate(policy: Policy, presentation: Presentation | undefined, holder: string | null): Promise<GateVerdict> {
    const checks: GateCheck[] = [];
    const verdict = (): GateVerdict => {
      const failed = checks.find((c) => !c.ok);
      return { policy: policy.id, pass: !failed, reason: failed ? `${failed.name}: ${failed.detail ?? 'failed'}` : null, checks };
    };
    if (!presentation) {
      checks.push({ name: 'presented', ok: false, detail: `policy ${policy.name} requires a ${policy.credentialType}; send credential_ref` });
      return verdict();
    }
    let id: Uint8Array;
    try {
      id = parseCredentialId(presentation.credentialRef);
    } catch (err) {
      checks.push({ name: 'presented', ok: false, detail: (err as Error).message });
      return verdict();
    }
    checks.push({ name: 'presented', ok: true });
    const credential = await this.deps.chain.credential(id);
    checks.push({ name: 'exists', ok: credential?.status === 'registered', detail: credential ? `the credential is ${credential.status}` : 'no such credential on chain' });
    if (!credential || credential.status !== 'registered') return verdict();
    checks.push({ name: 'type', ok: credential.credentialType === policy.credentialType, detail: `the credential is a ${credential.credentialType}, the policy requires ${policy.credentialType}` });
    checks.push({ name: 'not-revoked', ok: credential.revokedMs === null, detail: 'the credential is revoked' });
    const issuer = await this.deps.chain.did(credential.issuer);
    checks.push({ name: 'issuer-active', ok: issuer?.active === true, detail: "the issuer's DID is not active" });
    if (holder?.startsWith('did:ledger:') && policy.disclosure === 'full') {
      let subjectOk = false;
      try {
        subjectOk = Buffer.from(parseDid(holder).identifier).equals(Buffer.from(credential.subject));
      } catch {
        subjectOk = false;
      }
      checks.push({ name: 'subject', ok: subjectOk, detail: 'the credential was issued to another DID' });
    }
    if (policy.disclosure === 'selective (BBS+)') checks.push(await this.bbs(credential.bbs, presentation, holder));
    return verdict();
  }

  private async bbs(key: { publicKey: Uint8Array } | undefined, p: Presentation, holder: string | null): Promise<GateCheck> {
    if (!key) return { name: 'bbs-proof', ok: false, detail: 'the credential has no BBS key on chain' };
    if (!p.bbs) return { name: 'bbs-proof', ok: false, detail: 'selective disclosure needs credential_presentation (a BBS proof)' };
    if (!holder) return { name: 'bbs-proof', ok: false, detail: 'a BBS presentation is bound to its holder: the message must be authcrypted' };
    try {
      const ok = await this.deps.verifyBbs({
        proof: fromHex(p.bbs.proof),
        publicKey: key.publicKey,
        header: fromHex(p.bbs.header),
        presentationHeader: new TextEncoder().encode(holder),
        disclosed: p.bbs.disclosed.map((d) => ({ index: d.index, message: fromHex(d.message) })),
        totalMessageCount: p.bbs.totalMessageCount,
      });
      return { name: 'bbs-proof', ok, detail: 'the BBS proof does not verify for this holder' };
    } catch (err) {
      return { name: 'bbs-proof', ok: false, detail: (err as Error).message };
    }
  }
}
