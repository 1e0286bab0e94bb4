/**
 * A small client of the KYC service's /v1 API, as an integrator would write one from the seed's
 * table: for the e2e tests and bench/kyc. Every non-2xx answer throws with the Problem's detail.
 */

export class KycApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: any,
  ) {
    super(`HTTP ${status}: ${body?.detail ?? JSON.stringify(body)}`);
  }
}

export interface Upload {
  name: string;
  type: string;
  bytes: Uint8Array;
}

export class KycClient {
  jwt = '';
  apiKey = '';

  constructor(readonly base: string) {}

  async call<T = any>(method: string, path: string, opts: { body?: unknown; form?: FormData; auth?: 'jwt' | 'key' | 'bearer-key' | 'none'; expect?: number } = {}): Promise<T> {
    const headers: Record<string, string> = {};
    const auth = opts.auth ?? 'none';
    if (auth === 'jwt') headers.authorization = `Bearer ${this.jwt}`;
    if (auth === 'bearer-key') headers.authorization = `Bearer ${this.apiKey}`;
    if (auth === 'key') headers['x-api-key'] = this.apiKey;
    let body: FormData | string | undefined;
    if (opts.form) body = opts.form;
    else if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    const res = await fetch(`${this.base}${path}`, { method, headers, body });
    const text = await res.text();
    const parsed = text === '' ? null : JSON.parse(text);
    if (opts.expect !== undefined ? res.status !== opts.expect : res.status >= 300) throw new KycApiError(res.status, parsed);
    return parsed as T;
  }

  async register(email: string, password: string, name: string) {
    const out = await this.call('POST', '/v1/auth/register', { body: { email, password, name }, expect: 201 });
    this.jwt = out.token;
    return out;
  }

  async createKey(mode: 'live' | 'sandbox', name = `${mode} key`) {
    const out = await this.call<{ key: string; id: string }>('POST', '/v1/api-keys', { body: { name, mode }, auth: 'jwt', expect: 201 });
    this.apiKey = out.key;
    return out;
  }

  createSession(body: Record<string, unknown>) {
    return this.call<{ session: any; sessionUrl: string }>('POST', '/v1/verifications', { body, auth: 'key', expect: 201 });
  }

  getSession(id: string) {
    return this.call<{ session: any }>('GET', `/v1/verifications/${id}`, { auth: 'key' });
  }

  uploadDocument(id: string, image: Uint8Array, fields: { type: string; side: string; final?: boolean; mrz?: string }) {
    return this.call('POST', `/v1/verifications/${id}/documents`, { form: documentForm(image, fields), auth: 'key', expect: 201 });
  }

  livenessChallenge(id: string) {
    return this.call<{ challenge: any }>('GET', `/v1/verifications/${id}/liveness-challenge`, { auth: 'key' });
  }

  liveness(id: string, frames: Uint8Array[]) {
    return this.call<{ liveness: any }>('POST', `/v1/verifications/${id}/liveness`, { form: framesForm(frames), auth: 'key' });
  }

  addWebhook(url: string, events?: string[]) {
    return this.call<{ id: string; secret: string }>('POST', '/v1/webhooks', { body: { url, ...(events ? { events } : {}) }, auth: 'bearer-key', expect: 201 });
  }
}

export function documentForm(image: Uint8Array, fields: { type: string; side: string; final?: boolean; mrz?: string }): FormData {
  const form = new FormData();
  form.set('type', fields.type);
  form.set('side', fields.side);
  if (fields.final !== undefined) form.set('final', String(fields.final));
  if (fields.mrz !== undefined) form.set('mrz', fields.mrz);
  form.set('file', new Blob([image], { type: 'image/jpeg' }), 'document.jpg');
  return form;
}

export function framesForm(frames: Uint8Array[]): FormData {
  const form = new FormData();
  frames.forEach((f, i) => form.append('frames', new Blob([f], { type: 'image/jpeg' }), `frame-${i}.jpg`));
  return form;
}
