/**
 * A relying party's provider login as a browser goes through it, for tests of a service that
 * logs users in through an OpenID provider (the KYC service's `GET /v1/auth/<provider>`): start at
 * the service, follow the provider's redirects with its cookies, and stop where the provider sends
 * the browser back to the service's callback. Used with the real provider of oidc-provider.ts.
 */

/** A browser at the provider: follows its redirects with its cookies until it is sent to `stopAt`. */
export async function browse(start: string, stopAt: string): Promise<string> {
  const jar = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop < 12; hop++) {
    if (url.startsWith(stopAt)) return url;
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of res.headers.getSetCookie()) {
      const [pair = ''] = c.split(';');
      const eq = pair.indexOf('=');
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /max-age=0/i.test(c)) jar.delete(pair.slice(0, eq).trim());
      else jar.set(pair.slice(0, eq).trim(), value);
    }
    const location = res.headers.get('location');
    await res.body?.cancel();
    if (!location) throw new Error(`the provider stopped at ${url} with ${res.status}`);
    url = new URL(location, url).href;
  }
  throw new Error('too many redirects');
}

/**
 * `GET <base>/v1/auth/<provider><query>` (a 302 to the provider), then the provider's pages up
 * to the service's callback: the provider's authorization URL and the callback URL with its
 * `code` and `state`, not yet opened.
 */
export async function providerLogin(base: string, query = '', provider = 'test'): Promise<{ authUrl: URL; callback: string }> {
  const start = await fetch(`${base}/v1/auth/${provider}${query}`, { redirect: 'manual' });
  if (start.status !== 302) throw new Error(`start answered ${start.status} ${await start.text()}`);
  await start.body?.cancel();
  const authUrl = new URL(start.headers.get('location')!);
  return { authUrl, callback: await browse(authUrl.href, `${base}/v1/auth/${provider}/callback`) };
}
