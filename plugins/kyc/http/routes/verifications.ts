import type { RequestContext } from '../../../../node/http/server.js';
import { HttpProblem, validation } from '../../../common/http/problems.js';
import { Reply } from '../../../common/http/router.js';
import { DID_PATTERN, oneOf, onlyFields, onlyQuery, optionalBoolean, optionalString, queryEnum, queryInt, queryString } from '../../../common/http/validate.js';
import { API_KEY_MODES, DOCUMENT_SIDES, SANDBOX_OUTCOMES, SESSION_STATUSES } from '../../types.js';
import { MAX_IMAGE_BYTES } from '../../verification/checks/image.js';
import { MAX_FRAMES, type CreateInput, type SessionService, type UploadInput } from '../../verification/sessions.js';
import { parseMetadata } from '../../verification/metadata.js';
import { UPLOAD_TYPES } from '../../verification/states.js';
import { formBoolean, readMultipart } from '../multipart.js';
import type { KycCaller } from '../auth-levels.js';
import { CAN, requireRole } from '../roles.js';
import type { KycRouter } from '../router.js';

/**
 * /v1/verifications (API key, `x-api-key`), seed 001 A "Endpoints":
 *
 *   POST /v1/verifications                            201 {session (with sessionToken, this once), sessionUrl}
 *   GET  /v1/verifications?status&mode&from&to&limit&offset   {sessions[], total}, newest first (also any member's JWT)
 *   GET  /v1/verifications/<id>                       {session} (also any member's JWT)
 *   POST /v1/verifications/<id>/documents             multipart: file, type, side, final?, mrz?; 201 {document}
 *   GET  /v1/verifications/<id>/liveness-challenge    {challenge}
 *   POST /v1/verifications/<id>/liveness              multipart: frames (1..10), challengeId?; {liveness{status, score}}
 *
 * Another organization's session is a 404, like an unknown one.
 */

/** The upload form of both routes (API key and session token). */
export async function readDocumentForm(ctx: RequestContext): Promise<UploadInput> {
  const form = await readMultipart(ctx.req, {
    files: { file: { max: 1, required: true } },
    fields: { type: { maxBytes: 40 }, side: { maxBytes: 10 }, final: { maxBytes: 5 }, mrz: { maxBytes: 200 } },
    maxFileBytes: MAX_IMAGE_BYTES,
    maxTotalBytes: MAX_IMAGE_BYTES,
  });
  const type = oneOf(form.fields.type, 'type', UPLOAD_TYPES);
  const side = oneOf(form.fields.side, 'side', DOCUMENT_SIDES);
  const final = formBoolean(form, 'final', false);
  const mrz = form.fields.mrz;
  if (mrz !== undefined && type === 'address_proof') throw validation('an address proof has no MRZ', 'mrz');
  return { type, side, final, ...(mrz !== undefined ? { mrz } : {}), file: form.files.file![0]!.data };
}

/** The liveness form of both routes: the frames in total are at most 10 MB. */
export async function readLivenessForm(ctx: RequestContext): Promise<{ frames: Uint8Array[]; challengeId?: string }> {
  const form = await readMultipart(ctx.req, {
    files: { frames: { max: MAX_FRAMES, required: true } },
    fields: { challengeId: { maxBytes: 60 } },
    maxFileBytes: MAX_IMAGE_BYTES,
    maxTotalBytes: MAX_IMAGE_BYTES,
  });
  const frames = form.files.frames!.map((f) => f.data);
  return { frames, ...(form.fields.challengeId !== undefined ? { challengeId: form.fields.challengeId } : {}) };
}

/** The creation body: level 1..3; sandbox defaults to the key's mode; sandboxOutcome only in sandbox. */
export function parseCreate(body: Record<string, unknown>, caller: KycCaller): CreateInput {
  onlyFields(body, ['level', 'sandbox', 'sandboxOutcome', 'subjectDid', 'redirectUrl', 'metadata']);
  if (body.level === undefined) throw validation('level is required: 1 (document), 2 (document + liveness) or 3 (document + liveness + address proof)', 'level');
  if (body.level !== 1 && body.level !== 2 && body.level !== 3) throw validation(`level must be 1, 2 or 3, got ${JSON.stringify(body.level)}`, 'level');
  const sandbox = optionalBoolean(body, 'sandbox') ?? caller.apiKey?.mode === 'sandbox';
  const outcome = body.sandboxOutcome === undefined ? undefined : oneOf(body.sandboxOutcome, 'sandboxOutcome', SANDBOX_OUTCOMES);
  if (outcome !== undefined && !sandbox) throw new HttpProblem('validation', 'sandboxOutcome applies to sandbox sessions only (sandbox: true)', { code: 'SANDBOX_OUTCOME_LIVE', field: 'sandboxOutcome' });
  const subjectDid = optionalString(body, 'subjectDid', { max: 500, pattern: DID_PATTERN, patternText: 'a DID (did:<method>:<identifier>)' });
  const redirectUrl = optionalString(body, 'redirectUrl', { max: 2000 });
  if (redirectUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(redirectUrl);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw validation('redirectUrl must be an absolute http or https URL', 'redirectUrl');
  }
  return {
    level: body.level,
    sandbox,
    ...(outcome !== undefined ? { sandboxOutcome: outcome } : {}),
    ...(subjectDid !== undefined ? { subjectDid } : {}),
    ...(redirectUrl !== undefined ? { redirectUrl } : {}),
    metadata: parseMetadata(body.metadata),
  };
}

const ID = '([^/]+)';
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A list bound on createdAt, in ms: an ISO 8601 date-time with its zone, or a date, which is its
 * whole UTC day (from its start for `from`, to its end for `to`). 400 DATE_INVALID otherwise.
 */
function queryDate(query: URLSearchParams, name: string, edge: 'start' | 'end'): number | undefined {
  const text = queryString(query, name, 40);
  if (text === undefined) return undefined;
  const ms = DATE.test(text) ? Date.parse(`${text}T00:00:00.000Z`) + (edge === 'end' ? 86_400_000 - 1 : 0) : DATE_TIME.test(text) ? Date.parse(text) : NaN;
  // Date.parse rolls 2025-02-30 over into March: a date must read back as itself
  if (Number.isNaN(ms) || (DATE.test(text) && new Date(ms).toISOString().slice(0, 10) !== text) || ms < 0) {
    throw new HttpProblem('validation', `${name} must be an ISO 8601 date (2025-06-01) or date-time with a zone (2025-06-01T12:00:00Z), got ${JSON.stringify(text.slice(0, 40))}`, { code: 'DATE_INVALID', field: name });
  }
  return ms;
}

export function mountVerifications(router: KycRouter, deps: { sessions: SessionService }): void {
  const { sessions } = deps;
  const caller = (c: KycCaller) => {
    if (!c.apiKey) throw new HttpProblem('forbidden', 'verification sessions are managed with an API key (x-api-key)');
    return { organizationId: c.organizationId, apiKey: c.apiKey };
  };

  router.add('POST', '/v1/verifications', 'apiKey', async (req) => {
    const input = parseCreate(await req.body(), req.caller);
    return new Reply(201, await sessions.create(caller(req.caller), input));
  });

  router.add('GET', '/v1/verifications', 'member', async (req) => {
    requireRole(req.caller, CAN.read, ['api-key']);
    onlyQuery(req.query, ['status', 'mode', 'from', 'to', 'limit', 'offset']);
    const status = queryEnum(req.query, 'status', SESSION_STATUSES);
    const mode = queryEnum(req.query, 'mode', API_KEY_MODES);
    const from = queryDate(req.query, 'from', 'start');
    const to = queryDate(req.query, 'to', 'end');
    if (from !== undefined && to !== undefined && from > to) throw new HttpProblem('validation', `from (${req.query.get('from')}) is after to (${req.query.get('to')})`, { code: 'DATE_RANGE_INVALID', field: 'from' });
    const limit = queryInt(req.query, 'limit', 20, 1, 100);
    const offset = queryInt(req.query, 'offset', 0, 0, 1_000_000_000);
    return sessions.list(req.tenantId, { ...(status ? { status } : {}), ...(mode ? { mode } : {}), ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}), limit, offset });
  });

  router.add('GET', new RegExp(`^/v1/verifications/${ID}$`), 'member', async (req) => {
    requireRole(req.caller, CAN.read, ['api-key']);
    onlyQuery(req.query, []);
    return { session: await sessions.get(req.tenantId, req.params[0]!) };
  });

  router.add('POST', new RegExp(`^/v1/verifications/${ID}/documents$`), 'apiKey', async (req) => {
    const ref = { organizationId: req.tenantId, id: req.params[0]! };
    // the session is looked up before the body is read: an unknown one is a 404, not a 400 on its form
    await sessions.resolve(ref);
    const input = await readDocumentForm(req.ctx);
    return new Reply(201, { document: await sessions.uploadDocument(ref, input) });
  });

  router.add('GET', new RegExp(`^/v1/verifications/${ID}/liveness-challenge$`), 'apiKey', async (req) => {
    onlyQuery(req.query, []);
    return { challenge: await sessions.livenessChallenge({ organizationId: req.tenantId, id: req.params[0]! }) };
  });

  router.add('POST', new RegExp(`^/v1/verifications/${ID}/liveness$`), 'apiKey', async (req) => {
    const ref = { organizationId: req.tenantId, id: req.params[0]! };
    await sessions.resolve(ref);
    const { frames, challengeId } = await readLivenessForm(req.ctx);
    return { liveness: await sessions.submitLiveness(ref, frames, challengeId) };
  });
}
