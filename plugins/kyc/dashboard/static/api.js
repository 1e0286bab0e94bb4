// The service's REST API (/v1) with the account JWT. The JWT lives in this module's memory only,
// never in localStorage, sessionStorage or a cookie: the API takes no ambient credential, so it
// needs no CSRF defence, and a reload signs out.

export class ApiError extends Error {
  constructor(status, detail, code) {
    super(detail);
    this.status = status;
    this.code = code;
  }
}

export const state = {
  token: null,
  /** GET /v1/auth/me: {user, organization} */
  me: null,
  /** 'sandbox' or 'live': what the session, credential and key lists show */
  mode: 'sandbox',
  /** which optional parts of the API this node has and the signed-in role may use (probe()) */
  can: {},
  /** GET /dashboard/config.json: {providers, explorerUrl} */
  config: { providers: [], explorerUrl: null },
};

function problemText(status, body) {
  return body?.detail ?? body?.message ?? body?.title ?? `The service answered HTTP ${status}.`;
}

/** A /v1 call as JSON; a Problem becomes an ApiError with its status, detail and code. */
export async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  if (state.token) headers.authorization = `Bearer ${state.token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(`/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, 'The service did not answer. Check your connection and try again.');
  }
  const data = res.status === 204 ? null : await res.json().catch(() => null);
  if (!res.ok) {
    throw new ApiError(res.status, problemText(res.status, data), data?.code);
  }
  return data;
}

export const get = (path) => api('GET', path);

/** An image the API serves to the token's holder (its bytes), as a blob: URL (the caller revokes it). */
export async function imageUrl(path) {
  const res = await fetch(`/v1${path}`, { headers: { authorization: `Bearer ${state.token}` } });
  if (!res.ok) {
    const data = await res.json().catch(() => null);
    throw new ApiError(res.status, problemText(res.status, data), data?.code);
  }
  return URL.createObjectURL(await res.blob());
}

export const enc = encodeURIComponent;

/** A query string from the set values of `params`. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * Which pages to show: a page whose API this node does not have, or the signed-in role may not
 * use, is not shown. Each part is asked once after sign-in with a read that changes nothing; a
 * 2xx means the part is there and allowed.
 */
const PROBES = {
  sessions: '/verifications?limit=1',
  review: '/review/sessions?limit=1',
  credentials: '/credentials?limit=1',
  team: '/team',
  organization: '/organization',
  apiKeys: '/api-keys',
  webhooks: '/webhooks',
};

export async function probe() {
  const entries = await Promise.all(Object.entries(PROBES).map(async ([name, path]) => {
    try {
      await get(path);
      return [name, true];
    } catch (err) {
      if (err instanceof ApiError && err.status === 0) throw err;
      return [name, false];
    }
  }));
  state.can = Object.fromEntries(entries);
}

/** The signed-in member's role; an account from before roles is its organization's owner. */
export const role = () => state.me?.user?.role ?? 'owner';
