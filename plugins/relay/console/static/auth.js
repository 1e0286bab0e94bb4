// Operator sign-in. With plugins.relay.oidc set, the console is a public OpenID client (client id
// = the relay's audience): the authorization code flow with PKCE (S256), state and nonce, back to
// /console/; the code is exchanged at the provider's token endpoint from this page, and the
// id_token is handed to POST /v1/auth/session for the relay's session JWT. Across the redirect the
// PKCE verifier, state and nonce wait in sessionStorage (removed on return); no token is stored.
import { api, signIn } from './api.js';

const PENDING = 'relay-console:oidc';

const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
const random = (n = 32) => b64url(crypto.getRandomValues(new Uint8Array(n)));

/** GET /v1/auth/config: {issuer, clientId, scopes}, or null when operator login is not configured. */
export async function oidcConfig() {
  return (await api('GET', '/auth/config')).oidc;
}

export function redirectUri() {
  return `${location.origin}/console/`;
}

async function discovery(issuer) {
  const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  let res;
  try {
    res = await fetch(url, { headers: { accept: 'application/json' }, credentials: 'omit' });
  } catch {
    throw new Error(`the OpenID provider ${issuer} cannot be reached from this browser`);
  }
  if (!res.ok) throw new Error(`the OpenID provider's discovery document answered HTTP ${res.status}`);
  const doc = await res.json();
  if (doc.issuer !== issuer) throw new Error(`the discovery document names the issuer ${doc.issuer}, not ${issuer}`);
  return doc;
}

/** Sends the browser to the provider; `back` is the console route to show after sign-in. */
export async function startOidc(config, back) {
  if (!crypto.subtle) throw new Error('this page is not a secure context (https or a loopback address), so it cannot make a PKCE challenge');
  const doc = await discovery(config.issuer);
  const verifier = random(32);
  const challenge = b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const pending = { state: random(16), nonce: random(16), verifier, back, issuer: config.issuer, clientId: config.clientId };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const params = new URLSearchParams({
    client_id: config.clientId,
    response_type: 'code',
    scope: config.scopes,
    redirect_uri: redirectUri(),
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  location.assign(`${doc.authorization_endpoint}?${params}`);
}

function claimsOf(jwt) {
  const part = jwt.split('.')[1] ?? '';
  return JSON.parse(atob(part.replaceAll('-', '+').replaceAll('_', '/').padEnd(Math.ceil(part.length / 4) * 4, '=')));
}

/**
 * On the provider's redirect back (`?code&state` or `?error`): checks the state, exchanges the
 * code, checks the nonce, opens a relay session. Returns the console route to show, or null when
 * this load is not a return from the provider.
 */
export async function completeOidc() {
  const q = new URLSearchParams(location.search);
  if (!q.has('state') || !(q.has('code') || q.has('error'))) return null;
  const raw = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  const pending = raw ? JSON.parse(raw) : null;
  // the code must not stay in the address bar or the history
  history.replaceState(null, '', `/console/${pending?.back ?? ''}`);
  if (!pending || pending.state !== q.get('state')) throw new Error('this sign-in did not start in this tab (its state does not match): start it again');
  if (q.has('error')) throw new Error(`the OpenID provider refused the sign-in: ${q.get('error')} ${q.get('error_description') ?? ''}`.trim());
  const doc = await discovery(pending.issuer);
  const res = await fetch(doc.token_endpoint, {
    method: 'POST',
    credentials: 'omit',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: q.get('code'), redirect_uri: redirectUri(), client_id: pending.clientId, code_verifier: pending.verifier }),
  });
  const tokens = await res.json().catch(() => ({}));
  if (!res.ok || typeof tokens.id_token !== 'string') throw new Error(`the provider's token endpoint answered HTTP ${res.status}: ${tokens.error_description ?? tokens.error ?? 'no id_token'}`);
  // the relay verifies the signature, issuer and audience; the nonce is ours to check
  if (claimsOf(tokens.id_token).nonce !== pending.nonce) throw new Error('the id_token does not carry the nonce this sign-in sent');
  const session = await api('POST', '/auth/session', { id_token: tokens.id_token });
  await signIn(session.token);
  return pending.back || '#/mediations';
}
