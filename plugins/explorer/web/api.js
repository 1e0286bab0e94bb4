// The explorer's public REST API (/api/v1) and WebSocket feed (/ws): the app's only sources.

export class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

/** GET /api/v1<path> as JSON; a Problem (4xx/5xx) becomes an ApiError with its status and detail. */
export async function api(path) {
  const res = await fetch(`/api/v1${path}`, { headers: { accept: 'application/json' } });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, body?.detail ?? body?.title ?? `HTTP ${res.status}`);
  return body;
}

/** The answer, or null on a 404 (for pages where a missing part is not an error). */
export async function maybe(path) {
  try {
    return await api(path);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

export const enc = encodeURIComponent;

/** A path segment: percent-encoded, but with its colons kept (the routes match DIDs and URNs as sent). */
export const seg = (text) => encodeURIComponent(text).replaceAll('%3A', ':');

/**
 * One WebSocket to /ws for the whole app, reconnecting after a drop. `listen(topics, fn)` calls
 * fn({type, data}) for each item of those topics until the returned function is called.
 */
const listeners = new Set();
let socket = null;
let retry = 0;

function wanted() {
  return [...new Set([...listeners].flatMap((l) => l.topics))];
}

function connect() {
  const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
  socket = ws;
  ws.addEventListener('open', () => {
    retry = 0;
    const topics = wanted();
    if (topics.length) ws.send(JSON.stringify({ subscribe: topics }));
  });
  ws.addEventListener('message', (e) => {
    let msg;
    try {
      msg = JSON.parse(e.data);
    } catch {
      return;
    }
    for (const l of listeners) l.fn(msg);
  });
  ws.addEventListener('close', () => {
    if (socket !== ws) return;
    socket = null;
    if (listeners.size) setTimeout(connect, Math.min(10_000, 500 * 2 ** retry++));
  });
}

export function listen(topics, fn) {
  const l = { topics, fn };
  listeners.add(l);
  if (!socket) connect();
  else if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ subscribe: topics }));
  return () => {
    listeners.delete(l);
    const gone = topics.filter((t) => !wanted().includes(t));
    if (gone.length && socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ unsubscribe: gone }));
  };
}
