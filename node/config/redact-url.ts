/** A server URL without its password, for messages and logs (config holds credentials in URLs). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.username ? `${u.username}${u.password ? ':***' : ''}@` : ''}${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return 'the configured URL';
  }
}
