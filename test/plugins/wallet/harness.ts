import type { Test } from 'tap';
import { buildDidCreate, buildTransfer, generateSeed, keyPairFromSeed, RpcClient, signAndEncode, toHex, waitForReceipt } from '../../../node/client/index.js';
import { addressFromPublicKey } from '../../../node/protocol/address.js';
import { didForPublicKey } from '../../../node/protocol/did.js';
import type { Plugin, PluginContext } from '../../../node/plugins/types.js';
import { PluginDb } from '../../../plugins/common/store/tables.js';
import { parseWalletConfig } from '../../../plugins/wallet/config.js';
import { WalletAuthenticator } from '../../../plugins/wallet/http/auth.js';
import { createWalletRouter, type WalletRouter } from '../../../plugins/wallet/http/router.js';
import type { WalletBase } from '../../../plugins/wallet/services.js';
import type { User } from '../../../plugins/wallet/types.js';
import { KeyRevocations } from '../../../plugins/wallet/users/key-revocations.js';
import { WalletSessions } from '../../../plugins/wallet/users/sessions.js';
import { newUserId, UserStore } from '../../../plugins/wallet/users/store.js';
import { startTestNode, type TestNode } from '../../fixtures/real-node.js';
import { httpCall, type CallResult } from '../common/http-call.js';

/**
 * Wallet routes on a real node in this process: a plugin named `wallet` that builds the parts
 * the composition root builds (config, store, sessions, users, the router with the real
 * authenticator) and lets the test mount the routes under test. Chain reads and submissions go
 * to the real node; `dev` is its genesis-funded account.
 */

export const ERRORS_BASE = 'https://errors.test/wallet';

export interface WalletParts {
  ctx: PluginContext;
  base: WalletBase;
  users: UserStore;
  sessions: WalletSessions;
  /** the keys recoveries replaced, which the authenticator refuses */
  revocations: KeyRevocations;
  router: WalletRouter;
}

export interface SignedIn {
  user: User;
  seed: Uint8Array;
  publicKey: Uint8Array;
  /** the Cookie header value of a live session */
  cookie: string;
}

export interface WalletHarness {
  node: TestNode;
  parts: WalletParts;
  url: string;
  rpc: RpcClient;
  req(method: string, path: string, o?: { cookie?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<CallResult>;
  /** a user stored directly (no chain work) with a live session; its DID is created on chain when `onChain` */
  signIn(o?: { seed?: Uint8Array; onChain?: boolean; fund?: bigint; handle?: string }): Promise<SignedIn>;
  /** sends `amount` units from the dev account and waits for the receipt */
  fund(address: string, amount: bigint): Promise<void>;
  /** submits a signed DidCreate for `seed` (funding it first) and waits for the receipt */
  createDid(seed: Uint8Array): Promise<string>;
}

class WalletTestPlugin implements Plugin {
  readonly name = 'wallet';
  parts!: WalletParts;

  constructor(
    private readonly mount: (p: WalletParts) => void | Promise<void>,
    private readonly config: Record<string, unknown>,
  ) {}

  async start(ctx: PluginContext): Promise<void> {
    const config = parseWalletConfig({ ...ctx.config, errorsBase: ERRORS_BASE, ...this.config });
    const db = new PluginDb(ctx.store);
    const base: WalletBase = {
      config,
      db,
      log: ctx.log,
      chain: ctx.chain,
      network: ctx.network,
      chainId: ctx.chainId,
      submit: (json) => ctx.submit(json),
      publicUrl: () => {
        const a = ctx.http.server.address();
        return typeof a === 'object' && a ? `http://127.0.0.1:${a.port}` : '';
      },
      now: Date.now,
    };
    const users = new UserStore(db);
    const sessions = await WalletSessions.create({ db, store: ctx.store, config, now: base.now });
    const revocations = new KeyRevocations(db);
    const router = createWalletRouter(ctx.http, new WalletAuthenticator({ sessions, users, revocations }), { errorsBase: ERRORS_BASE, log: ctx.log });
    this.parts = { ctx, base, users, sessions, revocations, router };
    await this.mount(this.parts);
    router.fallback('/v1');
  }

  async stop(): Promise<void> {}
}

export async function startWallet(t: Test, mount: (p: WalletParts) => void | Promise<void>, o: { config?: Record<string, unknown> } = {}): Promise<WalletHarness> {
  const plugin = new WalletTestPlugin(mount, o.config ?? {});
  const node = await startTestNode(t, { plugins: [plugin] });
  const state = node.plugins.find((p) => p.name === 'wallet');
  if (!state || state.state !== 'running') throw new Error(`the wallet test plugin did not start: ${JSON.stringify(state)}`);
  const url = state.url;
  const rpc = new RpcClient(node.url);
  const { parts } = plugin;
  const { fund, createDid } = chainHelpers(node, rpc);

  return {
    node,
    parts,
    url,
    rpc,
    req: (method, path, c = {}) => httpCall(url, method, path, { ...(c.body !== undefined ? { body: c.body } : {}), ...(c.raw !== undefined ? { raw: c.raw } : {}), headers: { ...(c.cookie ? { cookie: c.cookie } : {}), ...c.headers } }),
    fund,
    createDid,
    async signIn(s = {}) {
      const seed = s.seed ?? generateSeed();
      const { publicKey } = keyPairFromSeed(seed);
      const did = s.onChain ? await createDid(seed) : didForPublicKey(parts.base.network, publicKey);
      if (s.fund !== undefined) await fund(addressFromPublicKey(publicKey), s.fund);
      return storeSignedIn(parts, seed, did, { handle: s.handle ?? null, derivation: "m/44'/0'/0'/0'/0'" });
    },
  };
}

/** Funding from the node's dev account (one transfer at a time, each with the next committed nonce) and on-chain DIDs. */
export function chainHelpers(node: TestNode, rpc: RpcClient): Pick<WalletHarness, 'fund' | 'createDid'> {
  let devQueue: Promise<unknown> = Promise.resolve();
  const fund = (address: string, amount: bigint): Promise<void> => {
    const run = devQueue.then(async () => {
      const nonce = await rpc.getNonce(node.dev.address);
      const signed = signAndEncode(node.chainId, buildTransfer({ senderPubkey: node.dev.publicKey, nonce, to: address, amount }), node.dev.seed);
      await rpc.sendTransaction(signed.json);
      await waitForReceipt(rpc, signed.hash, { timeoutMs: 20_000 });
    });
    devQueue = run.catch(() => undefined);
    return run;
  };
  const createDid = async (seed: Uint8Array): Promise<string> => {
    const { publicKey } = keyPairFromSeed(seed);
    await fund(addressFromPublicKey(publicKey), 10_000_000n);
    const signed = signAndEncode(node.chainId, buildDidCreate({ senderPubkey: publicKey, nonce: 0n }), seed);
    await rpc.sendTransaction(signed.json);
    const receipt = await waitForReceipt(rpc, signed.hash, { timeoutMs: 20_000 });
    if ((receipt as { status?: string }).status !== 'success') throw new Error(`DidCreate failed: ${JSON.stringify(receipt)}`);
    return didForPublicKey(node.dev.network, publicKey);
  };
  return { fund, createDid };
}

/** A wallet user stored directly (as registration would store it) for the key of `seed`, with a live session. */
export async function storeSignedIn(parts: Pick<WalletParts, 'users' | 'sessions'>, seed: Uint8Array, did: string, o: { handle: string | null; derivation: string }): Promise<SignedIn> {
  const { publicKey } = keyPairFromSeed(seed);
  const address = addressFromPublicKey(publicKey);
  const now = new Date().toISOString();
  const user = await parts.users.create({
    id: newUserId(),
    did,
    publicKey: toHex(publicKey),
    address,
    origin: 'created',
    didTx: null,
    addresses: [{ chain: 'ledger', address, derivation: o.derivation }],
    displayName: null,
    handle: o.handle,
    hideBalances: false,
    email: null,
    oidcSub: null,
    createdAt: now,
    updatedAt: now,
  });
  const noRequest = { req: { headers: {}, socket: {} } } as never;
  const { cookie } = await parts.sessions.start(noRequest, { userId: user.id, publicKey: user.publicKey });
  return { user, seed, publicKey, cookie: cookie.split(';')[0]! };
}
