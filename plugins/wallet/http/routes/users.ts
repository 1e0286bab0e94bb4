import { MAX_TX_JSON_BYTES } from '../../../../node/protocol/transaction.js';
import { validation } from '../../../common/http/problems.js';
import { Reply } from '../../../common/http/router.js';
import { DID_PATTERN, onlyFields, onlyQuery, optionalBoolean, optionalString, queryString, requiredString } from '../../../common/http/validate.js';
import type { User } from '../../types.js';
import { MAX_CHALLENGE_LENGTH } from '../../users/challenges.js';
import { checkAddresses, type OidcLink, type Profile, type Proof, type RegisterInput, type Registration } from '../../users/register.js';
import type { WalletSessions } from '../../users/sessions.js';
import { HANDLE_PATTERN, type UserStore } from '../../users/store.js';
import type { LoginLimit } from '../login-limit.js';
import type { WalletRouter } from '../router.js';
import { refuseSecretParams, refuseSecrets } from '../secrets.js';

/**
 * Registration, the import challenge, the user and its settings (seed 001 B). Register answers
 * 201 `{id, did, didStatus, didStatusReason, didTx}` for a new user, 200 for an import that signed
 * an already registered user in, and sets the session cookie either way.
 */

export interface UsersDeps {
  registration: Registration;
  users: UserStore;
  sessions: WalletSessions;
  /** register and challenge count against it, every request */
  limit: LoginLimit;
}

const REGISTER_FIELDS = ['signedDidCreate', 'did', 'proof', 'addresses', 'displayName', 'handle'];
const SETTINGS_FIELDS = ['hideBalances', 'displayName', 'handle'];
const HANDLE_TEXT = '3-32 characters of a-z, 0-9, _, . and -, starting and ending with a letter or digit';

export function mountUsers(router: WalletRouter, deps: UsersDeps): void {
  const { registration, users, sessions, limit } = deps;

  router.add('POST', '/v1/users/register', 'none', async (req) => {
    limit.take(req.ctx);
    refuseSecretParams(req.query);
    onlyQuery(req.query, []);
    const body = await req.body();
    refuseSecrets(body);
    const input = parseRegisterBody(body);
    const found = await sessions.resolve(req.ctx);
    // an onboarding session (the OIDC handoff, no wallet yet): the new wallet is linked to its account
    const onboarding = found && found.session.userId === null && found.session.oidc ? found.session : undefined;
    const link: OidcLink | undefined = onboarding?.oidc ?? undefined;
    const result = await registration.register(input, link);
    // the lost device's sessions end when the DID's new key signs in
    if (result.keyChanged) await sessions.endAllOf(result.user.id);
    const { user } = result;
    const cookie = onboarding ? await sessions.attach(req.ctx, onboarding, user.id, user.publicKey) : (await sessions.start(req.ctx, { userId: user.id, publicKey: user.publicKey })).cookie;
    return new Reply(result.created ? 201 : 200, { id: user.id, did: user.did, didStatus: result.didStatus, didStatusReason: result.didStatusReason, didTx: user.didTx }, { 'set-cookie': cookie });
  });

  router.add('GET', '/v1/users/challenge', 'none', async (req) => {
    limit.take(req.ctx);
    refuseSecretParams(req.query);
    onlyQuery(req.query, ['did']);
    const did = queryString(req.query, 'did', 128);
    if (did === undefined) throw validation('did is required: the DID to prove control of', 'did');
    if (!DID_PATTERN.test(did)) throw validation(`did must be a DID (did:ledger:<network>:<address>)`, 'did');
    return registration.issueChallenge(did);
  });

  router.add('GET', '/v1/users/me', 'session', async (req) => {
    refuseSecretParams(req.query);
    onlyQuery(req.query, []);
    return userView(await users.require(req.caller.userId), registration);
  });

  router.add('PATCH', '/v1/users/me/settings', 'session', async (req) => {
    refuseSecretParams(req.query);
    onlyQuery(req.query, []);
    const body = await req.body();
    refuseSecrets(body);
    onlyFields(body, SETTINGS_FIELDS);
    if (!SETTINGS_FIELDS.some((f) => f in body)) throw validation(`give at least one of ${SETTINGS_FIELDS.join(', ')}`);
    const hideBalances = optionalBoolean(body, 'hideBalances');
    const displayName = body.displayName === null ? null : optionalString(body, 'displayName', { max: 64 });
    const handle = body.handle === null ? null : parseHandle(body);
    const user = await users.update(req.caller.userId, (u) => ({
      ...u,
      ...(hideBalances === undefined ? {} : { hideBalances }),
      ...(displayName === undefined ? {} : { displayName }),
      ...(handle === undefined ? {} : { handle }),
    }));
    return userView(user, registration);
  });
}

/** `GET /v1/users/me`: the user, its settings, addresses and where its DID stands. */
export async function userView(user: User, registration: Pick<Registration, 'didStatus'>): Promise<Record<string, unknown>> {
  const did = await registration.didStatus(user);
  return {
    id: user.id,
    did: user.did,
    handle: user.handle,
    displayName: user.displayName,
    settings: { hideBalances: user.hideBalances, displayName: user.displayName },
    publicKey: user.publicKey,
    address: user.address,
    addresses: user.addresses,
    origin: user.origin,
    email: user.email,
    createdAt: user.createdAt,
    didStatus: did.status,
    didStatusReason: did.reason,
    didTx: user.didTx,
  };
}

function parseRegisterBody(body: Record<string, unknown>): RegisterInput {
  onlyFields(body, REGISTER_FIELDS);
  const create = body.signedDidCreate !== undefined;
  const imported = body.did !== undefined;
  if (create === imported) throw validation('give exactly one of signedDidCreate (a new wallet: the signed DidCreate\'s JSON text) or did (an existing DID, with proof)');
  if (create && body.proof !== undefined) throw validation('proof goes with did, not with signedDidCreate (a DidCreate proves itself)', 'proof');
  const profile: Profile = {};
  if (body.addresses !== undefined) profile.addresses = checkAddresses(body.addresses);
  const displayName = optionalString(body, 'displayName', { max: 64 });
  if (displayName !== undefined) profile.displayName = displayName;
  const handle = parseHandle(body);
  if (handle !== undefined) profile.handle = handle;
  if (create) {
    const text = body.signedDidCreate;
    if (typeof text !== 'string' || text.trim() === '') throw validation('signedDidCreate must be the signed DidCreate\'s JSON text (the string ledger_sendTransaction takes)', 'signedDidCreate');
    if (text.length > MAX_TX_JSON_BYTES) throw validation(`signedDidCreate is at most ${MAX_TX_JSON_BYTES} characters`, 'signedDidCreate');
    return { signedDidCreate: text, ...profile };
  }
  const did = requiredString(body, 'did', { max: 128, pattern: DID_PATTERN, patternText: 'a DID (did:ledger:<network>:<address>)' });
  return { did, proof: parseProof(body.proof), ...profile };
}

function parseProof(value: unknown): Proof | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw validation('proof must be an object {challenge, signature}', 'proof');
  const p = value as Record<string, unknown>;
  for (const k of Object.keys(p)) if (k !== 'challenge' && k !== 'signature') throw validation(`proof has an unknown field ${k}; allowed: challenge, signature`, 'proof');
  if (typeof p.challenge !== 'string' || p.challenge === '' || p.challenge.length > MAX_CHALLENGE_LENGTH) throw validation('proof.challenge must be the challenge text from GET /v1/users/challenge', 'proof');
  if (typeof p.signature !== 'string' || !/^[0-9a-fA-F]{128}$/.test(p.signature)) throw validation('proof.signature must be 128 hex characters: the Ed25519 signature of the challenge\'s UTF-8 bytes', 'proof');
  return { challenge: p.challenge, signature: new Uint8Array(Buffer.from(p.signature, 'hex')) };
}

function parseHandle(body: Record<string, unknown>): string | undefined {
  const handle = optionalString(body, 'handle', { max: 32 });
  if (handle === undefined) return undefined;
  const lower = handle.toLowerCase();
  if (!HANDLE_PATTERN.test(lower)) throw validation(`handle must be ${HANDLE_TEXT}`, 'handle');
  return lower;
}
