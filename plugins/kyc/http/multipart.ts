import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { requestAborted } from '../../../node/http/body.js';
import { HttpProblem, validation } from '../../common/http/problems.js';

/**
 * Reads a multipart/form-data request (busboy) into Buffers, with every limit checked as the
 * bytes arrive: the size of each file and of all files (413 above), the number of files per
 * field, the length of each text field, and only the fields the route names (400 for any other,
 * for a text field sent twice, for a missing required file, and for a body that is not
 * multipart). After a refusal the rest of the body is read and dropped, up to a bound, so the
 * client gets the answer instead of a reset; past that bound the connection is closed.
 */

export interface MultipartSpec {
  /** file fields: how many files each takes, and whether at least one is required */
  files: Record<string, { max: number; required: boolean }>;
  /** text fields and their longest value in bytes */
  fields: Record<string, { maxBytes: number }>;
  /** the largest file, bytes (413 above) */
  maxFileBytes: number;
  /** all files together, bytes (413 above) */
  maxTotalBytes: number;
}

export interface UploadedFile {
  filename: string;
  /** what the client declared; never trusted for the type (the checks read the bytes) */
  mimeType: string;
  data: Buffer;
}

export interface MultipartForm {
  fields: Record<string, string>;
  files: Record<string, UploadedFile[]>;
}

/** room for the text fields and part headers on top of the files */
const OVERHEAD_BYTES = 256 * 1024;

/** The most a request of this spec may declare or send: its files and the room above. */
export function multipartCap(spec: Pick<MultipartSpec, 'maxTotalBytes'>): number {
  return spec.maxTotalBytes + OVERHEAD_BYTES;
}

const tooLarge = (detail: string, field?: string, close = false) =>
  new HttpProblem('payload-too-large', detail, { code: 'FILE_TOO_LARGE', ...(field ? { field } : {}), ...(close ? { headers: { connection: 'close' } } : {}) });
const bad = (code: string, detail: string, field?: string) => new HttpProblem('validation', detail, { code, ...(field ? { field } : {}) });

export function readMultipart(req: IncomingMessage, spec: MultipartSpec): Promise<MultipartForm> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) return Promise.reject(bad('MULTIPART_REQUIRED', `this route takes a multipart/form-data body (got ${type ? JSON.stringify(type.slice(0, 60)) : 'no Content-Type'})`));
  // what is read in all, refusals included; a body past it is cut off
  const hardCap = multipartCap(spec);
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > hardCap) {
    req.pause();
    return Promise.reject(tooLarge(`the request is ${declared} bytes; uploads are at most ${spec.maxTotalBytes} bytes of files`, undefined, true));
  }
  const maxFiles = Object.values(spec.files).reduce((n, f) => n + f.max, 0);
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: req.headers,
      limits: { fileSize: spec.maxFileBytes, files: maxFiles, fields: Object.keys(spec.fields).length, fieldSize: Math.max(1, ...Object.values(spec.fields).map((f) => f.maxBytes)), fieldNameSize: 100, parts: maxFiles + Object.keys(spec.fields).length + 1 },
    });
  } catch (err) {
    return Promise.reject(bad('MULTIPART_INVALID', `the multipart body cannot be read: ${(err as Error).message}`));
  }

  return new Promise((resolve, reject) => {
    const form: MultipartForm = { fields: {}, files: {} };
    const started = new Map<string, number>();
    let total = 0;
    let seen = 0;
    let failure: HttpProblem | undefined;
    let settled = false;
    const finish = (err?: unknown) => {
      if (settled) return;
      settled = true;
      req.off('data', count);
      req.off('close', onClose);
      if (err) reject(err);
      else resolve(form);
    };
    // the first refusal wins; the body is drained to its end (or the cap) before answering
    const refuse = (p: HttpProblem) => {
      if (failure) return;
      failure = p;
      req.unpipe(bb);
      bb.removeAllListeners();
      bb.on('error', () => {});
      if (req.readableEnded) finish(p);
      else {
        req.once('end', () => finish(p));
        req.resume();
      }
    };
    const count = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > hardCap) {
        req.pause();
        finish(tooLarge(`the request exceeds ${hardCap} bytes; uploads are at most ${spec.maxTotalBytes} bytes of files`, undefined, true));
      }
    };
    const onClose = () => {
      if (!req.readableEnded) finish(requestAborted());
    };
    req.on('data', count);
    req.on('close', onClose);

    bb.on('file', (name, stream, info) => {
      const rule = spec.files[name];
      if (!rule) {
        stream.resume();
        return refuse(spec.fields[name] ? bad('FIELD_NOT_FILE', `${name} is a text field, not a file`, name) : bad('UNKNOWN_FIELD', `unknown file field ${name}; allowed: ${Object.keys(spec.files).join(', ')}`, name));
      }
      const list = (form.files[name] ??= []);
      // counted when the part starts: a file's stream ends after the next part may have begun
      const n = (started.get(name) ?? 0) + 1;
      started.set(name, n);
      if (n > rule.max) {
        stream.resume();
        return refuse(bad('TOO_MANY_FILES', `${name} takes at most ${rule.max} file(s)`, name));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (c: Buffer) => {
        size += c.length;
        total += c.length;
        if (total > spec.maxTotalBytes) return refuse(tooLarge(`the files together exceed ${spec.maxTotalBytes} bytes`, name));
        chunks.push(c);
      });
      stream.on('limit', () => refuse(tooLarge(`a file in ${name} exceeds ${spec.maxFileBytes} bytes`, name)));
      stream.on('end', () => {
        if (failure) return;
        list.push({ filename: info.filename ?? '', mimeType: info.mimeType, data: Buffer.concat(chunks, size) });
      });
    });
    bb.on('field', (name, value, info) => {
      const rule = spec.fields[name];
      if (!rule) return refuse(spec.files[name] ? bad('FILE_EXPECTED', `${name} must be a file`, name) : bad('UNKNOWN_FIELD', `unknown field ${name}; allowed: ${[...Object.keys(spec.fields), ...Object.keys(spec.files)].join(', ')}`, name));
      if (info.nameTruncated) return refuse(bad('UNKNOWN_FIELD', 'a field name is too long', name.slice(0, 100)));
      if (info.valueTruncated || Buffer.byteLength(value) > rule.maxBytes) return refuse(bad('FIELD_TOO_LONG', `${name} is at most ${rule.maxBytes} bytes`, name));
      if (name in form.fields) return refuse(bad('DUPLICATE_FIELD', `${name} is given more than once`, name));
      form.fields[name] = value;
    });
    bb.on('filesLimit', () => refuse(bad('TOO_MANY_FILES', `the form takes at most ${maxFiles} file(s)`)));
    bb.on('fieldsLimit', () => refuse(bad('UNKNOWN_FIELD', `the form takes only the fields ${Object.keys(spec.fields).join(', ')}`)));
    bb.on('partsLimit', () => refuse(bad('TOO_MANY_FILES', 'the form has too many parts')));
    bb.on('error', (err: Error) => refuse(bad('MULTIPART_INVALID', `the multipart body cannot be read: ${err.message.slice(0, 200)}`)));
    bb.on('close', () => {
      if (failure) return;
      for (const [name, rule] of Object.entries(spec.files)) {
        if (rule.required && !(form.files[name]?.length ?? 0)) return refuse(bad('FILE_REQUIRED', `the file field ${name} is required`, name));
      }
      finish();
    });
    req.pipe(bb);
  });
}

/** A form's boolean text field: `true` or `false` (absent: `fallback`). */
export function formBoolean(form: MultipartForm, name: string, fallback: boolean): boolean {
  const v = form.fields[name];
  if (v === undefined) return fallback;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw validation(`${name} must be true or false, got ${JSON.stringify(v.slice(0, 40))}`, name);
}
