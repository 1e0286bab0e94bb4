import type { Test } from 'tap';
import { addressFromPublicKey, buildDidRecover, buildSetRecoveryPolicy, guardianSignature, signAndEncode, waitForReceipt } from '../../../../node/client/index.js';
import { Mailer } from '../../../../plugins/common/mail/index.js';
import { Relay } from '../../../../plugins/wallet/chain/relay.js';
import { solvePow } from '../../../../plugins/wallet/guardians/pow.js';
import { mountGuardians, type GuardianRouteDeps, type GuardianServices } from '../../../../plugins/wallet/http/routes/guardians.js';
import type { CallResult } from '../../common/http-call.js';
import { startWallet, type SignedIn, type WalletHarness, type WalletParts } from '../harness.js';

/**
 * The guardian routes on a real node, with the plugin's Mailer in outbox mode (no SMTP), as the
 * composition root builds it, and the steps of a recovery as a phone and its guardians take
 * them. The wallet trusts X-Forwarded-For here, so a test names the caller's address, and asks
 * for 6 bits of work (config `recovery.powBits`), so solving is instant.
 */

export const TEST_CONFIG = { session: { trustProxy: true }, recovery: { powBits: 6 } };

export interface GuardianHarness extends WalletHarness {
  mailer: Mailer;
  services: GuardianServices;
  /** `owner` invites `guardian` by DID and `guardian` confirms with the token */
  makeGuardian(owner: SignedIn, guardian: SignedIn): Promise<string>;
}

export interface GuardianParts {
  mailer: Mailer;
  services: GuardianServices;
}

/** Mounts the guardian routes on a test wallet's parts; the mailer stops at teardown. */
export function mountGuardianRoutes(t: Test, p: WalletParts, o: { throttle?: GuardianRouteDeps['throttle'] } = {}): GuardianParts {
  const mailer = new Mailer({ store: p.ctx.store, from: p.base.config.email.from, log: p.ctx.log });
  mailer.start();
  t.teardown(() => mailer.stop());
  const services = mountGuardians(p.router, { base: p.base, users: p.users, mailer, relay: new Relay(p.base), ...(o.throttle ? { throttle: o.throttle } : {}) });
  return { mailer, services };
}

export async function startGuardians(t: Test, o: { throttle?: GuardianRouteDeps['throttle']; config?: Record<string, unknown> } = {}): Promise<GuardianHarness> {
  let parts!: GuardianParts;
  const h = await startWallet(t, (p) => void (parts = mountGuardianRoutes(t, p, o)), { config: { ...TEST_CONFIG, ...o.config } });
  return { ...h, ...parts, makeGuardian: (owner, guardian) => makeGuardian(h, owner, guardian) };
}

export async function makeGuardian(h: Pick<WalletHarness, 'req'>, owner: SignedIn, guardian: SignedIn): Promise<string> {
  const invite = await h.req('POST', '/v1/guardian/invite', { cookie: owner.cookie, body: { guardianDid: guardian.user.did } });
  if (invite.status !== 201) throw new Error(`invite: ${invite.status} ${invite.text}`);
  const confirm = await h.req('POST', '/v1/guardian/confirm', { cookie: guardian.cookie, body: { token: invite.body.token } });
  if (confirm.status !== 200) throw new Error(`confirm: ${confirm.status} ${confirm.text}`);
  return invite.body.id as string;
}

/**
 * POST initiate from `ip`, as a phone does: a challenge, then a nonce worth at least `bits`
 * (default: what the challenge asks), or the `proof` given (null: none).
 */
export async function initiate(h: Pick<WalletHarness, 'req'>, body: Record<string, unknown>, o: { ip?: string; bits?: number; proof?: unknown } = {}): Promise<CallResult> {
  const headers = { 'x-forwarded-for': o.ip ?? '192.0.2.1' };
  let proof = o.proof;
  if (proof === undefined) {
    const c = (await h.req('GET', '/v1/guardian/recovery/challenge', { headers })).body;
    proof = solvePow({ challenge: c.challenge, did: String(body.subjectDid), newPublicKey: String(body.newPublicKey).toLowerCase(), bits: o.bits ?? c.bits });
  }
  return h.req('POST', '/v1/guardian/recovery/initiate', { headers, body: { ...body, ...(proof === null ? {} : { proof }) } });
}

/** The owner's SetRecoveryPolicy, sent over RPC and committed. */
export async function setPolicy(h: Pick<WalletHarness, 'rpc' | 'node'>, owner: Pick<SignedIn, 'seed' | 'publicKey' | 'user'>, guardians: SignedIn[], o: { threshold?: number; delayBlocks?: number } = {}): Promise<void> {
  const nonce = await h.rpc.getNonce(addressFromPublicKey(owner.publicKey));
  const tx = buildSetRecoveryPolicy({ senderPubkey: owner.publicKey, nonce, did: owner.user.did, guardians: guardians.map((g) => g.user.did), threshold: o.threshold ?? guardians.length, delayBlocks: o.delayBlocks ?? 0 });
  const signed = signAndEncode(h.node.chainId, tx, owner.seed);
  await h.rpc.sendTransaction(signed.json);
  const receipt = (await waitForReceipt(h.rpc, signed.hash, { timeoutMs: 20_000 })) as { status: string };
  if (receipt.status !== 'success') throw new Error(`SetRecoveryPolicy: ${JSON.stringify(receipt)}`);
}

/** A guardian's signature over the recovery message of `did` to `newKey` at `versionId`, as the approve route takes it. */
export const approvalOf = (h: Pick<WalletHarness, 'node'>, guardian: SignedIn, did: string, newKey: Uint8Array, versionId: number): string =>
  guardianSignature({ chainId: h.node.chainId, did, newPublicKey: newKey, versionId, guardianSeed: guardian.seed });

/**
 * The rest of a recovery after initiate: each guardian approves request `requestId` (unless it
 * did already), and the new key (funded here) sends the DidRecover through finalize; answers its
 * committed receipt.
 */
export async function approveAndFinalize(
  h: Pick<WalletHarness, 'req' | 'rpc' | 'node' | 'fund'>,
  o: { requestId: string; did: string; versionId: number; guardians: SignedIn[]; newSeed: Uint8Array; newKey: Uint8Array },
): Promise<{ status: string; events: Array<Record<string, unknown>> }> {
  const signatures = [];
  for (const g of o.guardians) {
    const signature = approvalOf(h, g, o.did, o.newKey, o.versionId);
    const approved = await h.req('POST', `/v1/guardian/recovery/${o.requestId}/approve`, { cookie: g.cookie, body: { signature } });
    if (approved.status !== 200 && approved.body?.code !== 'ALREADY_APPROVED') throw new Error(`approve: ${approved.status} ${approved.text}`);
    signatures.push({ guardian: g.user.did, signature });
  }
  const address = addressFromPublicKey(o.newKey);
  await h.fund(address, 10_000_000n);
  const nonce = await h.rpc.getNonce(address);
  const recover = signAndEncode(h.node.chainId, buildDidRecover({ senderPubkey: o.newKey, nonce, did: o.did, newPublicKey: o.newKey, signatures }), o.newSeed);
  const finalized = await h.req('POST', `/v1/guardian/recovery/${o.requestId}/finalize`, { raw: recover.json, headers: { 'content-type': 'application/json' } });
  if (finalized.status !== 200) throw new Error(`finalize: ${finalized.status} ${finalized.text}`);
  return (await waitForReceipt(h.rpc, recover.hash, { timeoutMs: 20_000 })) as never;
}
