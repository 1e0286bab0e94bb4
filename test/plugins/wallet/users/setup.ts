import type { Test } from 'tap';
import { buildDidCreate, generateSeed, keyPairFromSeed, signAndEncode } from '../../../../node/client/index.js';
import { sign } from '../../../../node/crypto/ed25519.js';
import { toHex, utf8 } from '../../../../node/protocol/bytes.js';
import { didForPublicKey } from '../../../../node/protocol/did.js';
import type { ThrottleRule } from '../../../../plugins/common/http/throttle.js';
import { LoginLimit } from '../../../../plugins/wallet/http/login-limit.js';
import { mountAddresses } from '../../../../plugins/wallet/http/routes/addresses.js';
import { mountDirectory } from '../../../../plugins/wallet/http/routes/directory.js';
import { mountSession } from '../../../../plugins/wallet/http/routes/session.js';
import { mountUsers } from '../../../../plugins/wallet/http/routes/users.js';
import { ChallengeStore } from '../../../../plugins/wallet/users/challenges.js';
import { Onboarding, type OnboardingOptions } from '../../../../plugins/wallet/users/onboarding.js';
import { Registration } from '../../../../plugins/wallet/users/register.js';
import { Sponsor } from '../../../../plugins/wallet/users/sponsor.js';
import { startWallet, type WalletHarness, type WalletParts } from '../harness.js';

/**
 * The users, session, directory and addresses routes on the wallet harness, wired as the
 * composition root wires them, with the onboarding worker running (stopped at teardown).
 */

export const SECRET = 'an-internal-secret-of-32-characters!';

export interface UsersParts {
  challenges: ChallengeStore;
  sponsor: Sponsor;
  onboarding: Onboarding;
  registration: Registration;
}

export interface UsersHarness extends WalletHarness {
  u: UsersParts;
}

export async function startUsers(
  t: Test,
  o: {
    config?: Record<string, unknown>;
    limit?: ThrottleRule;
    sessionLimit?: ThrottleRule;
    onboarding?: OnboardingOptions;
    worker?: boolean;
    /** more routes or background work on the same parts */
    mount?: (p: WalletParts) => void | Promise<void>;
  } = {},
): Promise<UsersHarness> {
  let u!: UsersParts;
  const mount = async (p: WalletParts) => {
    const challenges = new ChallengeStore(p.base.db, p.base.now);
    const sponsor = await Sponsor.create(p.base, p.ctx);
    const onboarding = new Onboarding(p.base, sponsor, { pollMs: 50, ...o.onboarding });
    const registration = new Registration({ base: p.base, users: p.users, challenges, onboarding, revocations: p.revocations });
    mountUsers(p.router, { registration, users: p.users, sessions: p.sessions, limit: new LoginLimit({ trustProxy: false, rule: o.limit ?? { max: 1000, windowMs: 60_000 } }) });
    mountSession(p.router, { users: p.users, sessions: p.sessions, revocations: p.revocations, internalSecret: p.base.config.internalSecret, limit: new LoginLimit({ trustProxy: false, rule: o.sessionLimit ?? { max: 1000, windowMs: 60_000 } }) });
    mountDirectory(p.router, { users: p.users });
    mountAddresses(p.router, { users: p.users });
    // registered before the node's own teardown, so the worker stops while the node still runs
    t.teardown(() => onboarding.stop());
    if (o.worker !== false) await onboarding.start();
    u = { challenges, sponsor, onboarding, registration };
    await o.mount?.(p);
  };
  const h = await startWallet(t, mount, { config: { internalSecret: SECRET, ...o.config } });
  return { ...h, u };
}

/** a new key's signed DidCreate (nonce 0 unless said) */
export function signedDidCreate(h: WalletHarness, o: { seed?: Uint8Array; nonce?: bigint } = {}) {
  const seed = o.seed ?? generateSeed();
  const { publicKey } = keyPairFromSeed(seed);
  const signed = signAndEncode(h.node.chainId, buildDidCreate({ senderPubkey: publicKey, nonce: o.nonce ?? 0n }), seed);
  return { seed, publicKey, did: didForPublicKey(h.parts.base.network, publicKey), ...signed };
}

export const signChallenge = (seed: Uint8Array, challenge: string): string => toHex(sign(seed, utf8(challenge)));

/** the `name=value` of a response's Set-Cookie */
export const cookieOf = (res: { headers: Headers }): string => (res.headers.get('set-cookie') ?? '').split(';')[0]!;

export async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
