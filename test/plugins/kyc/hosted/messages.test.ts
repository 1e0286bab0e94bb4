import t from 'tap';
import { readFileSync } from 'node:fs';
import { packageRoot } from '../../../../node/cli/package-root.js';
import { join } from 'node:path';
import { SESSION_REASONS } from '../../../../plugins/kyc/verification/reasons.js';

/**
 * The hosted page's sentences for people (static/messages.js, worded in the catalogue
 * static/strings.en.js) against what the server can say: every reason a session fails or expires
 * with, and every Problem code the modules behind the hosted routes can answer, has a sentence;
 * anything else gets a general one, never the server's text; and a level-1 session, which has no
 * liveness step, never hears of one.
 */

const root = packageRoot();
// a browser module without types: loaded as the page loads it
const messages = (await import(new URL('plugins/kyc/hosted/static/messages.js', `file://${root}/`).href)) as {
  REASON_KEYS: Record<string, unknown>;
  ERROR_KEYS: Record<string, string>;
  GENERAL_REASON_KEY: string;
  errorKey(status?: number, code?: unknown): string;
  reasonSentence(reason: unknown, level: number): string;
  errorSentence(status?: number, code?: unknown): string;
};
const GENERAL_REASON = messages.reasonSentence('no such reason', 1);

/** The modules a hosted upload, liveness submission or session read passes through. */
const HOSTED_SOURCES = [
  'plugins/kyc/http/routes/hosted-api.ts',
  'plugins/kyc/http/routes/verifications.ts',
  'plugins/kyc/http/multipart.ts',
  'plugins/kyc/http/router.ts',
  'plugins/kyc/verification/sessions.ts',
  'plugins/kyc/verification/states.ts',
  'plugins/kyc/verification/checks/image.ts',
  'plugins/kyc/verification/checks/mrz.ts',
  'plugins/common/http/router.ts',
  'plugins/common/http/problems.ts',
  'plugins/common/http/validate.ts',
];

/** Codes in those modules that only other routes or internal steps can produce. */
const NOT_ON_HOSTED_ROUTES = new Set([
  'SANDBOX_KEY_LIVE_SESSION', // creating a session (API key)
  'SANDBOX_OUTCOME_LIVE', // creating a session
  'DATE_INVALID', // the session list's from and to (API key)
  'DATE_RANGE_INVALID',
  'SESSION_NOT_IN_REVIEW', // the operator's decisions
  'DOCUMENT_NOT_FOUND', // the review queue's document images
  'CREDENTIAL_NOT_EXPECTED', // the issuer reporting a credential
  'CREDENTIAL_SUBJECT_MISMATCH',
  'SESSION_DECIDED', // the expiry sweeper
  'NOT_DUE',
]);

const CODE_LITERAL = /['"]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)['"]/g;

function serverCodes(): Set<string> {
  const codes = new Set<string>();
  for (const file of HOSTED_SOURCES) for (const m of readFileSync(join(root, file), 'utf8').matchAll(CODE_LITERAL)) codes.add(m[1]!);
  return codes;
}

const isSentence = (s: unknown): boolean => typeof s === 'string' && /^[A-Z].*\.$/.test(s) && !/[a-z]+_[a-z_]+|[A-Z]{2,}_[A-Z]/.test(s);

t.test('every reason the server decides with has a sentence for people', async (t) => {
  for (const reason of SESSION_REASONS) {
    t.ok(Object.hasOwn(messages.REASON_KEYS, reason), `${reason} has a sentence`);
    for (const level of [1, 2, 3]) {
      const sentence = messages.reasonSentence(reason, level);
      t.ok(isSentence(sentence), `${reason} at level ${level}: ${sentence}`);
      t.not(sentence, GENERAL_REASON, `${reason} is not the general sentence`);
    }
  }
  t.same(Object.keys(messages.REASON_KEYS).filter((r) => !(SESSION_REASONS as readonly string[]).includes(r)), [], 'no sentence for a reason the server no longer has');
});

t.test('every Problem code behind the hosted routes has a sentence for people', async (t) => {
  const codes = serverCodes();
  t.ok(codes.has('IMAGE_TOO_SMALL') && codes.has('LIVENESS_CHALLENGE_EXPIRED'), 'the scan finds the codes');
  for (const code of codes) {
    if (NOT_ON_HOSTED_ROUTES.has(code)) continue;
    t.ok(Object.hasOwn(messages.ERROR_KEYS, code), `${code} has a sentence`);
    t.ok(isSentence(messages.errorSentence(400, code)), `${code}: ${messages.errorSentence(400, code)}`);
  }
  for (const code of NOT_ON_HOSTED_ROUTES) t.ok(codes.has(code), `${code} is still the server's (else drop it from the list)`);
});

t.test('what the page does not know gets a general sentence, never the server\'s text', async (t) => {
  t.equal(messages.reasonSentence('selfie_blurry', 2), GENERAL_REASON, 'a reviewer\'s own code');
  t.equal(messages.reasonSentence(undefined, 1), GENERAL_REASON);
  t.equal(messages.reasonSentence('__proto__', 1), GENERAL_REASON, 'no inherited property is a sentence');
  t.equal(messages.reasonSentence('toString', 1), GENERAL_REASON);
  for (const [status, code] of [[400, 'SOMETHING_NEW'], [400, undefined], [0, undefined], [404, undefined], [413, undefined], [429, undefined], [500, 'INTERNAL'], [undefined, undefined]] as const) {
    const sentence = messages.errorSentence(status, code);
    t.ok(isSentence(sentence), `${status} ${code}: ${sentence}`);
    if (code) t.notMatch(sentence, code);
  }
  t.equal(messages.errorSentence(404, undefined), messages.errorSentence(404, 'SESSION_NOT_FOUND'));
  t.equal(messages.errorKey(400, 'constructor'), messages.errorKey(400, undefined), 'no inherited property is a code');
});

t.test('a level-1 session never hears of liveness, selfies or faces', async (t) => {
  for (const reason of [...SESSION_REASONS, 'unknown_code']) t.notMatch(messages.reasonSentence(reason, 1), /liveness|selfie|face/i, reason);
  t.match(messages.reasonSentence('face_mismatch', 2), /face/, 'a session with selfie photos is told what did not match');
});
