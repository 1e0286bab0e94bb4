import type { Test } from 'tap';

/**
 * The checks every served page shares (the consoles, the hosted page): a strict policy, the
 * security headers of plugins/common/static-assets.ts `pageHeaders`, and no inline code.
 */

export const cspDirectives = (csp: string): Map<string, string> => new Map(csp.split('; ').map((d) => [d.split(' ')[0]!, d.split(' ').slice(1).join(' ')]));

/** This origin only, no inline script or style, no framing; `expect` names the page's other directives. */
export function assertStrictPolicy(t: Test, csp: string, expect: Readonly<Record<string, string>> = {}): void {
  const d = cspDirectives(csp);
  const want = { 'default-src': "'none'", 'script-src': "'self'", 'style-src': "'self'", 'frame-ancestors': "'none'", 'form-action': "'none'", 'require-trusted-types-for': "'script'", ...expect };
  for (const [name, value] of Object.entries(want)) t.equal(d.get(name), value, name);
  t.notMatch(csp, /unsafe-inline|unsafe-eval|\*/, 'nothing unsafe, no wildcard');
}

export function assertPageHeaders(t: Test, res: Response, csp: string): void {
  t.equal(res.headers.get('content-security-policy'), csp);
  t.equal(res.headers.get('x-content-type-options'), 'nosniff');
  t.equal(res.headers.get('referrer-policy'), 'no-referrer');
  t.equal(res.headers.get('x-frame-options'), 'DENY');
}

export function assertNoInlineCode(t: Test, html: string): void {
  t.notMatch(html, /<script>|<script(?![^>]*\ssrc=)[^>]*>|\sstyle=|\son[a-z]+=/i, 'no inline script, style or handler');
}
