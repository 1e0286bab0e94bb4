import type { AddressInfo } from 'node:net';
import { buildDidCreate, buildTransfer, didForPublicKey, generateSeed, keyPairFromSeed, RpcClient, signAndEncode, UNIT, waitForReceipt } from '../../../../node/client/index.js';
import type { TestNode } from '../../../fixtures/real-node.js';
import type { RequestContext } from '../../../../node/http/server.js';
import type { Plugin, PluginContext } from '../../../../node/plugins/types.js';
import { noCredential } from '../../../../plugins/common/http/problems.js';
import { parseKycConfig, type KycConfig } from '../../../../plugins/kyc/config.js';
import { mountCredentialRoutes } from '../../../../plugins/kyc/http/routes/credentials.js';
import { mountOid4vci } from '../../../../plugins/kyc/http/routes/oid4vci.js';
import { mountRevocationLists } from '../../../../plugins/kyc/http/routes/revocation-lists.js';
import { createKycRouter } from '../../../../plugins/kyc/http/router.js';
import type { KycCaller, KycLevel } from '../../../../plugins/kyc/http/auth-levels.js';
import { IssuerDid } from '../../../../plugins/kyc/issuance/issuer-did.js';
import { loadServiceKey, type ServiceKey } from '../../../../plugins/common/chain/service-key.js';
import { IssuanceService } from '../../../../plugins/kyc/issuance/issuer.js';
import { loadBbsKey } from '../../../../plugins/kyc/issuance/bbs.js';
import type { BbsKeyPair } from '../../../../node/crypto/bbs.js';
import { listCredentials } from '../../../../plugins/kyc/issuance/list.js';
import { Revoker } from '../../../../plugins/kyc/issuance/revocation.js';
import { TxSender } from '../../../../plugins/common/chain/tx-sender.js';
import { OfferStore } from '../../../../plugins/kyc/oid4vci/offers.js';
import { Oid4vciServer } from '../../../../plugins/kyc/oid4vci/server.js';
import type { EventSink, IssuedCredential, KycBase, SessionOutcomes } from '../../../../plugins/kyc/services.js';
import { PluginDb } from '../../../../plugins/common/store/tables.js';
import type { KycEvent, VerificationSession } from '../../../../plugins/kyc/types.js';
import { ISSUER_BBS_ROW, ISSUER_SEED_ROW, ISSUER_SIGNER, ISSUER_TX_TABLE } from '../../../../plugins/kyc/issuance/tables.js';

/**
 * The issuance and OpenID4VCI parts wired the way the KYC composition root wires them, as a
 * plugin the real node starts with a real PluginContext. The other parts are stood in for by what
 * they hand over: sessions (a map the test fills), events (recorded), outcomes (recorded), and
 * API keys `key-A` / `key-B` of organizations org_A / org_B.
 */

export const API_KEYS: Record<string, string> = { 'key-A': 'org_A', 'key-B': 'org_B' };

export class IssuancePlugin implements Plugin {
  readonly name = 'kyc';
  ctx!: PluginContext;
  base!: KycBase & { config: KycConfig };
  key!: ServiceKey;
  bbsKey!: BbsKeyPair;
  db!: PluginDb;
  tx!: TxSender;
  offers!: OfferStore;
  issuance!: IssuanceService;
  did!: IssuerDid;
  revoker!: Revoker;
  readonly sessions = new Map<string, VerificationSession>();
  readonly events: Array<{ organizationId: string; type: KycEvent; data: Record<string, unknown> }> = [];
  readonly issued: Array<{ sessionId: string; credential: IssuedCredential }> = [];
  private waiters: Array<() => void> = [];
  /** set to intercept submissions (a crash between storing and submitting) */
  dropSubmissions = false;
  readonly dropped: string[] = [];

  readonly outcomes: SessionOutcomes = {
    credentialIssued: async (sessionId, credential) => {
      this.issued.push({ sessionId, credential });
      const s = this.sessions.get(sessionId);
      if (s) this.sessions.set(sessionId, { ...s, status: 'completed', credentialId: credential.credentialId, credentialOfferUri: credential.credentialOfferUri });
      for (const w of this.waiters.splice(0)) w();
    },
  };

  readonly sink: EventSink = {
    emit: async (organizationId, type, data) => {
      this.events.push({ organizationId, type, data });
    },
  };

  async start(ctx: PluginContext): Promise<void> {
    this.ctx = ctx;
    const config = parseKycConfig({ ...ctx.config, issuer: { name: 'Test KYC', jurisdiction: 'DE' } });
    this.db = new PluginDb(ctx.store);
    this.base = {
      config,
      db: this.db,
      log: ctx.log,
      chain: ctx.chain,
      network: ctx.network,
      chainId: ctx.chainId,
      submit: async (json) => {
        if (this.dropSubmissions) {
          this.dropped.push(json);
          return 'dropped';
        }
        return ctx.submit(json);
      },
      publicUrl: () => `http://127.0.0.1:${(ctx.http.server.address() as AddressInfo).port}`,
      now: () => Date.now(),
    };
    this.key = await loadServiceKey(this.db, ISSUER_SEED_ROW, ctx.network, ctx);
    this.bbsKey = await loadBbsKey(this.db, ISSUER_BBS_ROW, ctx);
    this.offers = new OfferStore(this.base);
    await this.startIssuance();
    this.revoker = new Revoker(this.base, this.key, this.tx, this.issuance.store, this.sink);
    const router = createKycRouter(ctx.http, { require: (c: RequestContext, level: Exclude<KycLevel, 'none'>) => this.authenticate(c, level) }, { errorsBase: config.errorsBase, log: ctx.log });
    mountOid4vci({ http: ctx.http, router, server: new Oid4vciServer(this.base, this.offers, this.issuance.store), offers: this.offers, publicUrl: this.base.publicUrl, now: this.base.now, log: ctx.log });
    mountCredentialRoutes({
      router,
      revoker: this.revoker,
      findSession: async (org, id) => (this.sessions.get(id)?.organizationId === org ? this.sessions.get(id) : undefined),
      list: (org, filter) => listCredentials(this.issuance.store.credentials, org, async (id) => this.sessions.get(id), filter),
    });
    mountRevocationLists({ router, chain: ctx.chain, key: this.key, publicUrl: this.base.publicUrl });
    router.fallback('/v1');
  }

  /** The issuance worker and the DID keeper, as a fresh start of the plugin would make them. */
  async startIssuance(): Promise<void> {
    this.tx = new TxSender({ ...this.base, table: ISSUER_TX_TABLE, signer: ISSUER_SIGNER }, this.key);
    this.issuance = new IssuanceService(this.base, this.key, this.bbsKey, this.tx, this.offers, { pollMs: 100 });
    this.issuance.setOutcomes(this.outcomes);
    this.did = new IssuerDid(this.base, this.key, this.tx, () => this.issuance.pendingJobs(), 200);
    this.did.start();
    await this.issuance.start();
  }

  async stopIssuance(): Promise<void> {
    await this.issuance.stop();
    await this.did.stop();
  }

  async stop(): Promise<void> {
    await this.stopIssuance();
  }

  private async authenticate(ctx: RequestContext, level: Exclude<KycLevel, 'none'>): Promise<KycCaller> {
    const key = ctx.req.headers['x-api-key'];
    const org = typeof key === 'string' ? API_KEYS[key] : undefined;
    if ((level !== 'apiKey' && level !== 'member') || !org) throw noCredential('kyc', 'send an API key in x-api-key');
    return { organizationId: org, via: 'api-key', apiKey: { id: `key_${org}`, mode: 'sandbox' } };
  }

  /** Resolves once `n` credentials were reported in all. */
  async issuedCount(n: number, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.issued.length < n) {
      if (Date.now() > deadline) throw new Error(`only ${this.issued.length} of ${n} credentials were issued in ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 500);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

/** A passed session as the verification part hands it over. */
export function passedSession(id: string, organizationId: string, subjectDid: string, level: 1 | 2 | 3 = 2): VerificationSession {
  const now = new Date().toISOString();
  return {
    id,
    organizationId,
    status: 'processing',
    level,
    sandbox: true,
    sandboxOutcome: 'pass',
    subjectDid,
    metadata: {},
    createdAt: now,
    expiresAt: new Date(Date.now() + 3600_000).toISOString(),
    documents: [
      {
        id: `doc_${id}`,
        type: 'passport',
        side: 'front',
        status: 'verified',
        extractedData: { firstName: 'Erika', lastName: 'Mustermann', nationality: 'D' },
        checks: { mediaType: 'image/png', width: 640, height: 480, bytes: 1234, sha256: 'ab'.repeat(32) },
        createdAt: now,
      },
    ],
    liveness: { status: 'passed', score: 0.97, completedAt: now, frames: 3 },
    steps: { document: true, liveness: true, address: false },
    apiKeyId: `key_${organizationId}`,
    tokenHash: '00'.repeat(32),
  };
}

/** A subject with its own DID on the node's chain, funded by the dev key: a credential's holder. */
export async function fundedSubject(node: TestNode, rpc: RpcClient) {
  const seed = generateSeed();
  const key = keyPairFromSeed(seed);
  const did = didForPublicKey(node.dev.network, key.publicKey);
  const send = async (unsigned: Parameters<typeof signAndEncode>[1], signer: Uint8Array) => {
    const s = signAndEncode(node.chainId, unsigned, signer);
    await rpc.sendTransaction(s.json);
    const receipt = await waitForReceipt(rpc, s.hash, { timeoutMs: 30_000 });
    if (receipt.status !== 'success') throw new Error(`setting up the subject failed: ${receipt.status}`);
  };
  await send(buildTransfer({ senderPubkey: node.dev.publicKey, nonce: await rpc.getNonce(node.dev.address), to: did.split(':')[3]!, amount: 10n * UNIT }), node.dev.seed);
  await send(buildDidCreate({ senderPubkey: key.publicKey, nonce: 0 }), seed);
  return { seed, key, did };
}
