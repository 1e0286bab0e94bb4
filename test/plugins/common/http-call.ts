/**
 * One HTTP request from a route test, as the plugins' test harnesses make them: a JSON body (or
 * raw text, or a multipart form), and the answer's status, headers, body (parsed when it is JSON,
 * else the text, null when empty) and text.
 */

export interface CallOptions {
  headers?: Record<string, string>;
  /** sent as JSON, with its content type */
  body?: unknown;
  /** sent as is */
  raw?: string;
  form?: FormData;
  redirect?: 'follow' | 'manual' | 'error';
}

export interface CallResult {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function httpCall(base: string, method: string, path: string, o: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...o.headers };
  let body: FormData | string | undefined = o.form ?? o.raw;
  if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers, ...(o.redirect ? { redirect: o.redirect } : {}), ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON: the text itself
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}
