import { randomBytes } from 'node:crypto';
import { MAIL_ERRORS, mailError } from './errors.js';

/** A mail as the plugins hand it to the mailer, its checks, and its id. */

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

const MAX_SUBJECT = 300;
const MAX_BODY = 256 * 1024;
/** one address, no display name: what the plugins send to (an account's email) */
const ADDRESS = /^[^\s@<>(),;:"\\]{1,64}@[^\s@<>(),;:"\\]{1,255}$/;

/** `mail_`, the time in ms (12 hex) and 12 random hex: ids sort by creation time, to the ms. */
export const newMailId = (nowMs: number): string => `mail_${Math.max(0, Math.floor(nowMs)).toString(16).padStart(12, '0').slice(-12)}${randomBytes(6).toString('hex')}`;

/** Throws MAIL_INVALID for a mail that cannot go out as it is. */
export function checkMail(mail: Mail): void {
  const bad = (what: string) => mailError(MAIL_ERRORS.MAIL_INVALID, what, 'invalid');
  if (typeof mail.to !== 'string' || !ADDRESS.test(mail.to)) throw bad(`the recipient ${JSON.stringify(String(mail.to).slice(0, 100))} is not an email address`);
  if (typeof mail.subject !== 'string' || mail.subject.trim() === '' || mail.subject.length > MAX_SUBJECT || /[\r\n]/.test(mail.subject)) {
    throw bad(`the subject must be one non-empty line of at most ${MAX_SUBJECT} characters`);
  }
  if (typeof mail.text !== 'string' || mail.text === '' || mail.text.length > MAX_BODY) throw bad(`the text must be non-empty and at most ${MAX_BODY} characters`);
  if (mail.html !== undefined && (typeof mail.html !== 'string' || mail.html.length > MAX_BODY)) throw bad(`the html must be at most ${MAX_BODY} characters`);
}
