import { HttpProblem } from '../../common/http/problems.js';
import type { Branding } from '../types.js';

/**
 * The organization's branding as the dashboard sets it (PATCH /v1/organization) and the hosted
 * page shows it. The logo is drawn into another party's page, so it is held to what it claims:
 * a PNG or JPEG data URI whose bytes start as one, at most MAX_LOGO_BYTES once decoded.
 */

export const MAX_LOGO_BYTES = 64 * 1024;
export const BRANDING_ERRORS = {
  INVALID: 'BRANDING_INVALID',
  COLOR_INVALID: 'BRANDING_COLOR_INVALID',
  LOGO_INVALID: 'BRANDING_LOGO_INVALID',
  LOGO_TOO_LARGE: 'BRANDING_LOGO_TOO_LARGE',
  LOGO_NOT_IMAGE: 'BRANDING_LOGO_NOT_IMAGE',
} as const;

/** each field: a new value, null to clear it, absent to keep it */
export interface BrandingPatch {
  color?: string | null;
  logo?: string | null;
}

const COLOR = /^#[0-9a-fA-F]{6}$/;
const LOGO = /^data:image\/(png|jpeg);base64,(.*)$/s;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MAGIC = { png: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), jpeg: Buffer.from([0xff, 0xd8, 0xff]) } as const;

const invalid = (code: string, field: string, detail: string) => new HttpProblem('validation', detail, { code, field });

export function parseBranding(value: unknown): BrandingPatch {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid(BRANDING_ERRORS.INVALID, 'branding', 'branding must be an object: {color?, logo?}');
  const body = value as Record<string, unknown>;
  for (const k of Object.keys(body)) if (k !== 'color' && k !== 'logo') throw invalid(BRANDING_ERRORS.INVALID, `branding.${k}`, `unknown field branding.${k}; allowed: color, logo`);
  const patch: BrandingPatch = {};
  if (body.color !== undefined) patch.color = body.color === null ? null : color(body.color);
  if (body.logo !== undefined) patch.logo = body.logo === null ? null : logo(body.logo);
  return patch;
}

function color(v: unknown): string {
  if (typeof v !== 'string' || !COLOR.test(v)) throw invalid(BRANDING_ERRORS.COLOR_INVALID, 'branding.color', 'branding.color must be # and 6 hexadecimal digits, like #1a2b3c (or null to clear it)');
  return v.toLowerCase();
}

function logo(v: unknown): string {
  const m = typeof v === 'string' ? LOGO.exec(v) : null;
  if (!m) throw invalid(BRANDING_ERRORS.LOGO_INVALID, 'branding.logo', 'branding.logo must be a data:image/png;base64,… or data:image/jpeg;base64,… URI (or null to clear it)');
  const type = m[1] as 'png' | 'jpeg';
  const data = m[2]!;
  // the decoded size from the text alone, so an oversized logo is never decoded
  const bytes = (data.length / 4) * 3 - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
  if (bytes > MAX_LOGO_BYTES) throw invalid(BRANDING_ERRORS.LOGO_TOO_LARGE, 'branding.logo', `branding.logo is at most ${MAX_LOGO_BYTES} bytes once decoded (got ${Math.floor(bytes)})`);
  if (data === '' || !BASE64.test(data)) throw invalid(BRANDING_ERRORS.LOGO_INVALID, 'branding.logo', 'the data of branding.logo is not valid base64 (padded, without line breaks)');
  const magic = MAGIC[type];
  if (!Buffer.from(data.slice(0, 16), 'base64').subarray(0, magic.length).equals(magic)) {
    throw invalid(BRANDING_ERRORS.LOGO_NOT_IMAGE, 'branding.logo', `branding.logo says image/${type} but its bytes are not a ${type.toUpperCase()} file`);
  }
  return v as string;
}

/** The stored branding after `patch`; undefined when nothing is left. */
export function applyBranding(current: Branding | undefined, patch: BrandingPatch): Branding | undefined {
  const next: Branding = { ...current };
  for (const k of ['color', 'logo'] as const) {
    const v = patch[k];
    if (v === null) delete next[k];
    else if (v !== undefined) next[k] = v;
  }
  return next.color === undefined && next.logo === undefined ? undefined : next;
}
