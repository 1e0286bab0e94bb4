import { request } from 'node:http';
import t, { type Test } from 'tap';
import { HttpServer } from '../../../../node/http/server.js';
import { createLogger } from '../../../../node/logging.js';
import { readMultipart, formBoolean } from '../../../../plugins/kyc/http/multipart.js';
import { createKycRouter } from '../../../../plugins/kyc/http/router.js';
import { TestAuthenticator } from '../verification/harness.js';

const MB = 1024 * 1024;

/** A route that reads the form with small limits and answers what it got. */
async function server(t: Test) {
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 64 * 1024 });
  const router = createKycRouter(http, new TestAuthenticator(), { errorsBase: 'https://errors.test/kyc', log: createLogger({ level: 'silent' }) });
  router.add('POST', '/v1/form', 'none', async (req) => {
    const form = await readMultipart(req.ctx.req, {
      files: { file: { max: 1, required: true }, extra: { max: 2, required: false } },
      fields: { side: { maxBytes: 10 }, final: { maxBytes: 5 } },
      maxFileBytes: 1 * MB,
      maxTotalBytes: 2 * MB,
    });
    return {
      fields: form.fields,
      final: formBoolean(form, 'final', false),
      files: Object.fromEntries(Object.entries(form.files).map(([k, v]) => [k, v.map((f) => ({ filename: f.filename, mimeType: f.mimeType, size: f.data.length, first: f.data[0] }))])),
    };
  });
  const { port } = await http.listen();
  t.teardown(() => http.close());
  const post = async (body: FormData | string, headers: Record<string, string> = {}) => {
    const res = await fetch(`http://127.0.0.1:${port}/v1/form`, { method: 'POST', body, headers });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  return { port, post };
}

const blob = (size: number, fill = 7) => new Blob([Buffer.alloc(size, fill)], { type: 'image/png' });
function form(parts: Array<[string, string | Blob, string?]>): FormData {
  const fd = new FormData();
  for (const [k, v, name] of parts) typeof v === 'string' ? fd.append(k, v) : fd.append(k, v, name ?? 'f.bin');
  return fd;
}

t.test('fields and files are collected as bytes', async (t) => {
  const { post } = await server(t);
  const r = await post(form([['side', 'front'], ['final', 'true'], ['file', blob(1000, 9), 'a.png'], ['extra', blob(5)], ['extra', blob(6)]]));
  t.equal(r.status, 200);
  t.same(r.body, { fields: { side: 'front', final: 'true' }, final: true, files: { file: [{ filename: 'a.png', mimeType: 'image/png', size: 1000, first: 9 }], extra: [{ filename: 'f.bin', mimeType: 'image/png', size: 5, first: 7 }, { filename: 'f.bin', mimeType: 'image/png', size: 6, first: 7 }] } });
});

t.test('clear 400s', async (t) => {
  const { post } = await server(t);
  const cases: Array<[string, FormData | string, Record<string, string>, string, string?]> = [
    ['JSON body', '{"a":1}', { 'content-type': 'application/json' }, 'MULTIPART_REQUIRED'],
    ['no file', form([['side', 'front']]), {}, 'FILE_REQUIRED', 'file'],
    ['unknown field', form([['colour', 'red'], ['file', blob(10)]]), {}, 'UNKNOWN_FIELD', 'colour'],
    ['unknown file field', form([['photo', blob(10)], ['file', blob(10)]]), {}, 'UNKNOWN_FIELD', 'photo'],
    ['a file sent as text', form([['file', 'hello']]), {}, 'FILE_EXPECTED', 'file'],
    ['text sent as a file', form([['side', blob(3)], ['file', blob(10)]]), {}, 'FIELD_NOT_FILE', 'side'],
    ['duplicate field', form([['side', 'front'], ['side', 'back'], ['file', blob(10)]]), {}, 'DUPLICATE_FIELD', 'side'],
    ['two files in a one-file field', form([['file', blob(10)], ['file', blob(10)]]), {}, 'TOO_MANY_FILES', 'file'],
    ['a long field', form([['side', 'x'.repeat(50)], ['file', blob(10)]]), {}, 'FIELD_TOO_LONG', 'side'],
    ['broken multipart', '--xyz\r\nContent-Disposition: form-data; name="side"\r\n\r\nfront', { 'content-type': 'multipart/form-data; boundary=xyz' }, 'MULTIPART_INVALID'],
    ['no boundary', 'abc', { 'content-type': 'multipart/form-data; charset=utf-8' }, 'MULTIPART_INVALID'],
  ];
  for (const [what, body, headers, code, field] of cases) {
    const r = await post(body, headers);
    t.equal(r.status, 400, what);
    t.equal(r.body.code, code, what);
    if (field) t.equal(r.body.field, field, what);
    t.match(r.headers.get('content-type'), /^application\/problem\+json/, what);
  }
  const r = await post(form([['final', 'yes'], ['file', blob(10)]]));
  t.match(r.body, { status: 400, field: 'final', detail: /true or false/ });
});

t.test('413 for a file over the limit and for files over the total', async (t) => {
  const { post } = await server(t);
  const big = await post(form([['file', blob(MB + 1)]]));
  t.equal(big.status, 413);
  t.match(big.body, { code: 'FILE_TOO_LARGE', field: 'file', type: 'https://errors.test/kyc/payload-too-large' });
  const total = await post(form([['file', blob(MB)], ['extra', blob(MB)], ['extra', blob(MB)]]));
  t.equal(total.status, 413);
  t.equal(total.body.code, 'FILE_TOO_LARGE');
  // the connection stays usable after a drained refusal
  t.equal((await post(form([['file', blob(10)]]))).status, 200);
});

t.test('a declared length far over the limit is refused before reading, and the connection closed', async (t) => {
  const { port } = await server(t);
  const res = await new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/form', headers: { 'content-type': 'multipart/form-data; boundary=b', 'content-length': String(50 * MB) } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body }));
    });
    r.on('error', reject);
    r.write('--b\r\n');
  });
  t.equal(res.status, 413);
  t.equal(res.connection, 'close');
  // past the largest upload of any KYC route, the server refuses it before the route runs
  t.match(JSON.parse(res.body), { code: 'BODY_TOO_LARGE', maxBytes: 10 * MB + 256 * 1024 });
});
