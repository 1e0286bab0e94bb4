// The relay's operator REST (/v1, same origin): the console's only source of facts. The credential
// (a session JWT or an slk_ API key) is held in this module's memory and nowhere else, so a reload
// or a new tab asks for it again and no cookie ever authenticates a request (no CSRF surface).

export class ApiError extends Error {
  constructor(status, detail, code) {
    super(detail);
    this.status = status;
    this.code = code;
  }
}

let credential = null;
/** who is signed in: {via, scope, label, tenantId} from GET /v1/auth/me */
let who = null;
const onSignOut = new Set();

export const enc = encodeURIComponent;

/** `/v1<path>` as JSON; a Problem becomes an ApiError with its status, detail and code. */
export async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  if (credential) headers.authorization = `Bearer ${credential}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
  const answer = await res.json().catch(() => null);
  if (res.status === 401 && who) {
    // expired or revoked: back to the sign-in screen
    signOut(answer?.code === 'SESSION_EXPIRED' ? 'Your session expired. Sign in again.' : 'Your credential is no longer accepted. Sign in again.');
  }
  if (!res.ok) throw new ApiError(res.status, answer?.detail ?? answer?.error ?? answer?.title ?? `HTTP ${res.status}`, answer?.code);
  return answer;
}

export const get = (path) => api('GET', path);

/** Takes a credential, checks it with GET /v1/auth/me and keeps it; throws when refused. */
export async function signIn(token) {
  credential = token;
  try {
    const me = await get('/auth/me');
    who = {
      via: me.via,
      scope: me.via === 'session' ? 'full' : me.apiKey.scope,
      label: me.via === 'session' ? me.operator.email ?? me.operator.id : `API key “${me.apiKey.name}” (${me.apiKey.scope})`,
      tenantId: me.tenantId,
      expiresAt: me.expiresAt ?? null,
    };
    return who;
  } catch (err) {
    credential = null;
    who = null;
    throw err;
  }
}

export function signOut(reason) {
  const had = credential;
  credential = null;
  who = null;
  if (had) {
    // stateless sessions: tell the relay anyway, it echoes the expiry; the token is dropped here
    fetch('/v1/auth/logout', { method: 'POST', headers: { authorization: `Bearer ${had}` } }).catch(() => undefined);
  }
  for (const fn of onSignOut) fn(reason);
}

export function whenSignedOut(fn) {
  onSignOut.add(fn);
}

export function signedIn() {
  return who;
}

const RANK = { read: 0, manage: 1, full: 2 };

/** Whether the credential may call routes of `level` (read, manage, full): docs/relay-operator.md. */
export function can(level) {
  return who !== null && RANK[who.scope] >= RANK[level];
}
