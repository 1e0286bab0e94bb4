import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';

/**
 * TOTP (RFC 6238: SHA-1, 6 digits, 30 s steps, the parameters every authenticator app reads).
 * A code is accepted in the step before, at or after now (clock drift), and once only: the
 * caller keeps the last step used per user and passes it back, and a code of that step or an
 * earlier one is a replay.
 */

export const TOTP_PERIOD = 30;
const DIGITS = 6;
const WINDOW = 1;
const CODE = /^\d{6}$/;
/** base32 of 20 random bytes: 32 characters */
const SECRET = /^[A-Z2-7]{32}$/;

export interface TotpSetup {
  secret: string;
  /** the otpauth:// URI the QR code carries */
  uri: string;
  /** `data:image/png;base64,…` */
  qrCode: string;
}

export async function newTotp(issuer: string, label: string): Promise<TotpSetup> {
  const totp = new TOTP({ issuer, label, secret: new Secret({ size: 20 }), digits: DIGITS, period: TOTP_PERIOD });
  const uri = totp.toString();
  const qrCode = await QRCode.toDataURL(uri, { type: 'image/png', errorCorrectionLevel: 'M', margin: 2, width: 256 });
  return { secret: totp.secret.base32, uri, qrCode };
}

export const isTotpSecret = (value: unknown): value is string => typeof value === 'string' && SECRET.test(value);
export const isTotpCode = (value: unknown): value is string => typeof value === 'string' && CODE.test(value);

export type TotpCheck = { ok: true; step: number } | { ok: false; why: 'wrong' | 'replayed' };

/** Checks `code` against `secret` at `nowMs`; `lastStep` is the step of the last code accepted. */
export function checkTotp(secret: string, code: string, nowMs: number, lastStep: number | undefined): TotpCheck {
  if (!isTotpCode(code)) return { ok: false, why: 'wrong' };
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: DIGITS, period: TOTP_PERIOD });
  const delta = totp.validate({ token: code, timestamp: nowMs, window: WINDOW });
  if (delta === null) return { ok: false, why: 'wrong' };
  const step = totp.counter({ timestamp: nowMs }) + delta;
  if (lastStep !== undefined && step <= lastStep) return { ok: false, why: 'replayed' };
  return { ok: true, step };
}
