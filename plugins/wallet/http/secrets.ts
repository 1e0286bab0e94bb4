import { HttpProblem } from '../../common/http/problems.js';

/**
 * The wallet is non-custodial: no route takes a seed, a mnemonic or a private key. A body that
 * carries one, under any of the usual field names, at any depth, in any letter case (and with or
 * without `_`/`-`), is refused before anything else reads it, and the answer never echoes the
 * value. An extended private key (`xprv…`/`tprv…`) is refused under any field name.
 */

export const SECRETS_REFUSED = 'this service never accepts private keys';

/** the refused field names, lowercased, without `_` and `-` */
const SECRET_FIELDS = new Set(['seed', 'mnemonic', 'privatekey', 'secretkey', 'seedphrase', 'xprv']);
const EXTENDED_PRIVATE_KEY = /^[xt]prv[1-9A-HJ-NP-Za-km-z]{100,}$/;

const normalize = (name: string): string => name.toLowerCase().replace(/[-_]/g, '');

export const isSecretField = (name: string): boolean => SECRET_FIELDS.has(normalize(name));

/** Throws the 400 when `body` holds a secret-named field or an extended private key anywhere. */
export function refuseSecrets(body: unknown): void {
  // iterative: a hostile body cannot overflow the stack (parseJson also caps nesting at 64)
  const stack: unknown[] = [body];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (EXTENDED_PRIVATE_KEY.test(value)) throw refused('an extended private key');
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      stack.push(...value);
      continue;
    }
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (isSecretField(k)) throw refused(`the field ${JSON.stringify(k.slice(0, 40))}`, k.slice(0, 40));
      stack.push(v);
    }
  }
}

/** The same rule for query parameters. */
export function refuseSecretParams(query: URLSearchParams): void {
  for (const [k, v] of query) {
    if (isSecretField(k)) throw refused(`the query parameter ${JSON.stringify(k.slice(0, 40))}`, k.slice(0, 40));
    if (EXTENDED_PRIVATE_KEY.test(v)) throw refused('an extended private key');
  }
}

function refused(what: string, field?: string): HttpProblem {
  return new HttpProblem('validation', `${SECRETS_REFUSED}: the request carries ${what}; keys stay on the device, send signatures instead`, {
    code: 'PRIVATE_KEY_REFUSED',
    ...(field === undefined ? {} : { field }),
  });
}
