import type { Test } from 'tap';
import { generateSeed, keyPairFromSeed, RpcClient } from '../../../../node/client/index.js';
import { didForPublicKey } from '../../../../node/protocol/did.js';
import type { Plugin, PluginContext } from '../../../../node/plugins/types.js';
import { createKyc } from '../../../../plugins/kyc/index.js';
import { PluginDb } from '../../../../plugins/common/store/tables.js';
import { parseWalletConfig } from '../../../../plugins/wallet/config.js';
import { CredentialRedeemer } from '../../../../plugins/wallet/credentials/redeem.js';
import { CredentialStatusChecker } from '../../../../plugins/wallet/credentials/status.js';
import { CredentialStore } from '../../../../plugins/wallet/credentials/store.js';
import { WalletAuthenticator } from '../../../../plugins/wallet/http/auth.js';
import { mountCredentials } from '../../../../plugins/wallet/http/routes/credentials.js';
import { mountVerificationRequests } from '../../../../plugins/wallet/http/routes/verification-requests.js';
import { createWalletRouter } from '../../../../plugins/wallet/http/router.js';
import type { WalletBase } from '../../../../plugins/wallet/services.js';
import type { User } from '../../../../plugins/wallet/types.js';
import { KeyRevocations } from '../../../../plugins/wallet/users/key-revocations.js';
import { WalletSessions } from '../../../../plugins/wallet/users/sessions.js';
import { UserStore } from '../../../../plugins/wallet/users/store.js';
import { VerificationRequests } from '../../../../plugins/wallet/verification/requests.js';
import { KycClient } from '../../../../bench/lib/kyc/client.js';
import { testJpeg } from '../../../../bench/lib/kyc/images.js';
import { startTestNode, type TestNode } from '../../../fixtures/real-node.js';
import { httpCall, type CallResult } from '../../common/http-call.js';
import { chainHelpers, ERRORS_BASE, storeSignedIn } from '../harness.js';
import { until } from '../../../fixtures/wait.js';

/**
 * The real KYC plugin and the wallet's credential and verification request routes in one real
 * node, as `npm start` runs them: the wallet parts are built the way harness.ts builds them, with
 * `kycUrl` pointed at the KYC plugin once it listens. A sandbox organization (account and API
 * key) completes verification sessions for a subject DID, whose credential offers the wallet
 * then redeems.
 */

export interface Wallet {
  base: WalletBase;
  users: UserStore;
  sessions: WalletSessions;
  store: CredentialStore;
  status: CredentialStatusChecker;
  redeemer: CredentialRedeemer;
}

export interface Holder {
  user: User;
  seed: Uint8Array;
  publicKey: Uint8Array;
  cookie: string;
}

export interface KycWallet {
  node: TestNode;
  wallet: Wallet;
  url: string;
  kycUrl: string;
  api: KycClient;
  req(method: string, path: string, o?: { cookie?: string; body?: unknown; raw?: string }): Promise<CallResult>;
  /** a wallet user with a live session; its DID is created on chain unless `onChain: false` */
  holder(o?: { onChain?: boolean }): Promise<Holder>;
  /** a passed level-2 sandbox session for `did`: its id and its offer (the deep link, and the PIN when the issuer asks for one) */
  verified(did: string): Promise<{ sessionId: string; offer: string; txCode?: string }>;
}

class CredentialWalletPlugin implements Plugin {
  readonly name = 'wallet';
  wallet!: Wallet;

  async start(ctx: PluginContext): Promise<void> {
    const config = parseWalletConfig({ ...ctx.config, errorsBase: ERRORS_BASE });
    const db = new PluginDb(ctx.store);
    const base: WalletBase = { config, db, log: ctx.log, chain: ctx.chain, network: ctx.network, chainId: ctx.chainId, submit: (json) => ctx.submit(json), publicUrl: () => '', now: Date.now };
    const users = new UserStore(db);
    const sessions = await WalletSessions.create({ db, store: ctx.store, config, now: base.now });
    const router = createWalletRouter(ctx.http, new WalletAuthenticator({ sessions, users, revocations: new KeyRevocations(db) }), { errorsBase: ERRORS_BASE, log: ctx.log });
    const store = new CredentialStore(db);
    const status = new CredentialStatusChecker({ chain: ctx.chain, kycUrl: () => config.kycUrl, now: base.now, log: ctx.log });
    const redeemer = new CredentialRedeemer({ base, store, status });
    mountCredentials(router, { store, redeemer, status });
    // what a holder is asked to present with its credentials (test/plugins/wallet/verification)
    mountVerificationRequests(router, { requests: new VerificationRequests({ chain: ctx.chain }) });
    router.fallback('/v1');
    this.wallet = { base, users, sessions, store, status, redeemer };
  }

  async stop(): Promise<void> {}
}

/** the KYC plugin with `options` in its config section */
function kycWith(options: Record<string, unknown>): Plugin {
  const inner = createKyc();
  return { name: 'kyc', start: (ctx) => inner.start({ ...ctx, config: { ...ctx.config, ...options } }), stop: () => inner.stop() };
}


/** A real node with the KYC plugin (its config section with `kycOptions`) and the wallet's credential routes. */
export async function startKycWallet(t: Test, kycOptions: Record<string, unknown> = {}): Promise<KycWallet> {
  const walletPlugin = new CredentialWalletPlugin();
  const node = await startTestNode(t, { plugins: [kycWith(kycOptions), walletPlugin] });
  const urlOf = (name: string): string => {
    const state = node.plugins.find((p) => p.name === name);
    if (!state || state.state !== 'running') throw new Error(`the ${name} plugin did not start: ${JSON.stringify(state)}`);
    return state.url;
  };
  const url = urlOf('wallet');
  const kycUrl = urlOf('kyc');
  const { wallet } = walletPlugin;
  // the wallet's issuer is the KYC plugin, whose port is known only now
  wallet.base.config.kycUrl = kycUrl;
  const api = new KycClient(kycUrl);
  await api.register(`org-${process.pid}-${Date.now()}@example.org`, 'a passphrase of some length', 'Org');
  await api.createKey('sandbox');
  const { createDid } = chainHelpers(node, new RpcClient(node.url));

  return {
    node,
    wallet,
    url,
    kycUrl,
    api,
    req: (method, path, o = {}) => httpCall(url, method, path, { ...(o.body !== undefined ? { body: o.body } : {}), ...(o.raw !== undefined ? { raw: o.raw } : {}), headers: o.cookie ? { cookie: o.cookie } : {} }),
    async holder(o = {}) {
      const seed = generateSeed();
      const did = o.onChain !== false ? await createDid(seed) : didForPublicKey(node.dev.network, keyPairFromSeed(seed).publicKey);
      return storeSignedIn(wallet, seed, did, { handle: null, derivation: '' });
    },
    async verified(did) {
      const { session } = await api.createSession({ level: 2, sandbox: true, sandboxOutcome: 'pass', subjectDid: did });
      await api.uploadDocument(session.id, testJpeg(800, 500, 3), { type: 'passport', side: 'front', final: true });
      await api.livenessChallenge(session.id);
      await api.liveness(session.id, [testJpeg(320, 240, 4), testJpeg(320, 240, 5), testJpeg(320, 240, 6)]);
      const offer = await until('the credential offer', async () => {
        const res = await fetch(`${kycUrl}/v/s/${session.sessionToken}/offer.json`);
        return res.status === 200 ? ((await res.json()) as { uri: string; txCode?: string }) : undefined;
      });
      return { sessionId: session.id, offer: offer.uri, ...(offer.txCode !== undefined ? { txCode: offer.txCode } : {}) };
    },
  };
}
