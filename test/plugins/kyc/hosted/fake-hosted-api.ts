import busboy from 'busboy';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import type { Test } from 'tap';
import { HttpServer, type RequestContext } from '../../../../node/http/server.js';
import { HttpProblem, sendProblem } from '../../../../plugins/common/http/problems.js';
import { mountHostedPage } from '../../../../plugins/kyc/hosted/serve.js';

/**
 * The four hosted JSON routes of seed 001 part A (`/v1/verifications/s/<token>` and its documents,
 * liveness-challenge and liveness), in the seed's shapes, on a real HttpServer that also serves
 * the page through mountHostedPage. It keeps every upload so a test can inspect the bytes the
 * browser sent, and answers the page's `handoff.json` with the session's URL. Steps advance on `final=true` and on liveness; after the last step the session
 * is `processing` for `pollsUntilDecision` reads, then takes its outcome.
 */

export interface UploadedFile {
  field: string;
  filename: string;
  mimeType: string;
  bytes: Buffer;
  /** decoded dimensions: the upload is a real image */
  width: number;
  height: number;
  format: 'jpeg' | 'png';
}

export interface Upload {
  fields: Record<string, string>;
  files: UploadedFile[];
}

export interface FakeSession {
  token: string;
  id: string;
  level: 1 | 2 | 3;
  organizationName: string;
  /** the organization's branding as the dashboard stores it */
  branding?: { color?: string; logo?: string };
  status: 'pending' | 'processing' | 'completed' | 'failed' | 'expired';
  steps: string[];
  /** index into steps; steps.length once all are done */
  at: number;
  outcome: 'completed' | 'failed';
  redirectUrl?: string;
  offerUri?: string;
  pollsUntilDecision: number;
  expiresAt: string;
  /** what the real view gives from plugins.kyc.evidenceRetentionDays: days, or null (kept) */
  evidenceRetentionDays: number | null;
  documents: Upload[];
  liveness: Upload[];
  /** the Problem the next document upload is refused with (400), once */
  rejectNextDocument?: { code: string; detail: string };
  /** the Problem the next liveness submission is refused with (409), once */
  rejectNextLiveness?: { code: string; detail: string };
  /** the live liveness challenge */
  challengeId?: string;
}

const ERRORS_BASE = 'https://errors.example/kyc';
const PROBLEMS = { errorsBase: ERRORS_BASE, realm: 'kyc' };
const MAX_FILE = 10 * 1024 * 1024;

export async function startFakeHostedApi(t: Test) {
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 64 * 1024 });
  const sessions = new Map<string, FakeSession>();
  let offerCalls = 0;
  let url = '';
  mountHostedPage(http, {
    errorsBase: ERRORS_BASE,
    offer: async (token) => {
      offerCalls++;
      const s = sessions.get(token);
      return s?.status === 'completed' && s.offerUri ? { uri: s.offerUri } : null;
    },
    sessionUrl: async (token) => (sessions.has(token) ? `${url}/v/s/${token}` : null),
  });

  const withSession = (handler: (ctx: RequestContext, s: FakeSession) => Promise<void> | void) => async (ctx: RequestContext) => {
    try {
      const s = sessions.get(ctx.groups['token'] ?? '');
      if (!s) throw new HttpProblem('not-found', 'no verification session for this link');
      await handler(ctx, s);
    } catch (err) {
      sendProblem(ctx, PROBLEMS, err);
    }
  };
  const base = '^/v1/verifications/s/(?<token>[A-Za-z0-9_-]+)';

  http.route('GET', new RegExp(`${base}$`), withSession((ctx, s) => {
    if (s.status === 'processing' && --s.pollsUntilDecision <= 0) s.status = s.outcome;
    ctx.json(200, { session: hostedView(s) });
  }));

  http.route('POST', new RegExp(`${base}/documents$`), withSession(async (ctx, s) => {
    const upload = await readMultipart(ctx);
    const { type, side, final } = upload.fields;
    const file = upload.files.find((f) => f.field === 'file');
    if (!file) throw new HttpProblem('validation', 'the form has no file', { field: 'file' });
    if (!['passport', 'driving_license', 'national_id', 'residence_permit', 'address_proof'].includes(type ?? '')) throw new HttpProblem('validation', `unknown document type ${type}`, { field: 'type' });
    if (side !== 'front' && side !== 'back') throw new HttpProblem('validation', 'side must be front or back', { field: 'side' });
    if (s.rejectNextDocument) {
      const { code, detail } = s.rejectNextDocument;
      delete s.rejectNextDocument;
      throw new HttpProblem('validation', detail, { code, field: 'file' });
    }
    s.documents.push(upload);
    if (final === 'true') complete(s, type === 'address_proof' ? 'address' : 'document');
    ctx.json(201, { document: { id: `doc_${s.documents.length}`, type, side, status: 'uploaded', createdAt: new Date().toISOString() } });
  }));

  let challenges = 0;
  http.route('GET', new RegExp(`${base}/liveness-challenge$`), withSession((ctx, s) => {
    const expiresAt = new Date(Date.now() + 120_000).toISOString();
    s.challengeId = `chl_fake${++challenges}`;
    ctx.json(200, { challenge: { id: s.challengeId, type: 'head_turn', instructions: 'Look at the camera, then slowly turn your head to the left.', expiresAt } });
  }));

  http.route('POST', new RegExp(`${base}/liveness$`), withSession(async (ctx, s) => {
    const upload = await readMultipart(ctx);
    const frames = upload.files.filter((f) => f.field === 'frames');
    if (frames.length === 0) throw new HttpProblem('validation', 'frames is required', { field: 'frames' });
    if (!s.challengeId) throw new HttpProblem('conflict', 'get a liveness challenge first');
    const { challengeId } = upload.fields;
    if (challengeId !== undefined && challengeId !== s.challengeId) throw new HttpProblem('conflict', `challengeId ${challengeId} is not the live challenge`);
    if (s.rejectNextLiveness) {
      const { code, detail } = s.rejectNextLiveness;
      delete s.rejectNextLiveness;
      delete s.challengeId;
      throw new HttpProblem('conflict', detail, { code });
    }
    delete s.challengeId;
    s.liveness.push(upload);
    complete(s, 'liveness');
    ctx.json(200, { liveness: { status: 'passed', score: 0.97 } });
  }));

  // with its own icon: a browser's /favicon.ico request would 404 into the console the test watches
  http.route('GET', '/return', (ctx) => {
    ctx.send(200, '<!doctype html><html lang="en"><link rel="icon" href="data:,"><title>Back</title><h1>Back at the organization</h1></html>', 'text/html; charset=utf-8');
  });

  const { port } = await http.listen();
  t.teardown(() => http.close());
  url = `http://127.0.0.1:${port}`;
  let n = 0;

  return {
    url,
    sessions,
    offerCalls: () => offerCalls,
    create(o: Partial<Omit<FakeSession, 'token' | 'id' | 'steps' | 'at' | 'documents' | 'liveness'>> & { level: 1 | 2 | 3 }): FakeSession {
      n++;
      const steps = ['document', 'liveness', 'address'].slice(0, o.level);
      const s: FakeSession = {
        organizationName: 'Acme Bank',
        status: 'pending',
        outcome: 'completed',
        pollsUntilDecision: 2,
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
        evidenceRetentionDays: 30,
        ...o,
        token: `sess_tok_fake${n}${'x'.repeat(20)}`,
        id: `ver_fake${n}`,
        steps,
        at: 0,
        documents: [],
        liveness: [],
      };
      sessions.set(s.token, s);
      return s;
    },
    pageUrl: (s: FakeSession) => `${url}/v/s/${s.token}`,
  };
}

function hostedView(s: FakeSession) {
  return {
    id: s.id,
    status: s.status,
    level: s.level,
    organizationName: s.organizationName,
    organization: { name: s.organizationName, ...s.branding },
    steps: s.steps,
    currentStep: s.status === 'pending' ? (s.steps[s.at] ?? null) : null,
    completedSteps: s.steps.slice(0, s.at),
    expiresAt: s.expiresAt,
    evidenceRetentionDays: s.evidenceRetentionDays,
    ...(s.redirectUrl ? { redirectUrl: s.redirectUrl } : {}),
    ...(s.status === 'completed' && s.offerUri ? { credentialOfferUri: s.offerUri } : {}),
    ...(s.status === 'failed' ? { reason: 'face_mismatch', message: 'the face in the liveness frames does not match the document photo' } : {}),
  };
}

function complete(s: FakeSession, step: string) {
  if (s.status !== 'pending' || s.steps[s.at] !== step) throw new HttpProblem('conflict', `the ${step} step is not the current one`);
  s.at++;
  if (s.at >= s.steps.length) s.status = 'processing';
}

function decode(bytes: Buffer): { format: 'jpeg' | 'png'; width: number; height: number } {
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    const img = jpeg.decode(bytes, { maxMemoryUsageInMB: 256 });
    return { format: 'jpeg', width: img.width, height: img.height };
  }
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    const img = PNG.sync.read(bytes);
    return { format: 'png', width: img.width, height: img.height };
  }
  throw new HttpProblem('validation', 'the file is not a JPEG or PNG image', { field: 'file' });
}

function readMultipart(ctx: RequestContext): Promise<Upload> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: ctx.req.headers, limits: { fileSize: MAX_FILE, files: 10, fields: 10 } });
    } catch {
      reject(new HttpProblem('validation', 'the body must be multipart/form-data'));
      return;
    }
    const fields: Record<string, string> = {};
    const pending: Array<Promise<{ field: string; filename: string; mimeType: string; bytes: Buffer }>> = [];
    bb.on('field', (name, value) => (fields[name] = value));
    bb.on('file', (field, stream, info) => {
      pending.push(new Promise((res, rej) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('limit', () => rej(new HttpProblem('payload-too-large', 'a file is larger than 10 MB')));
        stream.on('end', () => res({ field, filename: info.filename ?? '', mimeType: info.mimeType, bytes: Buffer.concat(chunks) }));
      }));
    });
    bb.on('error', () => reject(new HttpProblem('validation', 'the multipart body is malformed')));
    bb.on('close', () => {
      Promise.all(pending)
        .then((raw) => resolve({ fields, files: raw.map((f) => ({ ...f, ...decode(f.bytes) })) }))
        .catch(reject);
    });
    ctx.req.pipe(bb);
  });
}
