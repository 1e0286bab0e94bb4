import type { Secret, SecretsResolver } from 'didcomm-node';

/**
 * A didcomm-node SecretsResolver over a fixed list of secrets (the mediator's own keys, from
 * `didKeyFromSeed(seed).secrets`). It answers for the exact key ids it holds, and for the keys of
 * a did:peer:2 made of those keys (identity.ts): `<did:peer:2…>#key-N` is the N-th key element of
 * the DID, and when that element is the multikey of one of our did:key key ids (`<did:key>#<mb>`),
 * it is our key under another id. A did:peer:2 is self-certifying, so any such DID is ours,
 * whatever its services; this is what lets the relay answer under the did:peer:2 of any endpoint
 * it has published.
 */
export function staticSecretsResolver(secrets: readonly Secret[]): SecretsResolver {
  const lookup = ownSecretLookup(secrets);
  return {
    get_secret: async (id: string) => lookup(id),
    find_secrets: async (ids: string[]) => ids.filter((id) => lookup(id) !== null),
  };
}

/** The secret of key id `id`, or null; see staticSecretsResolver. */
export function ownSecretLookup(secrets: readonly Secret[]): (id: string) => Secret | null {
  const byId = new Map(secrets.map((s) => [s.id, s] as const));
  const byMultibase = new Map(secrets.map((s) => [s.id.slice(s.id.indexOf('#') + 1), s] as const));
  return (id: string) => {
    const exact = byId.get(id);
    if (exact) return exact;
    const m = /^did:peer:2((?:\.[A-Za-z][A-Za-z0-9_=-]+)+)#key-([1-9][0-9]?)$/.exec(id);
    if (!m) return null;
    const keys = m[1]!.slice(1).split('.').filter((e) => e[0] !== 'S');
    const element = keys[Number(m[2]) - 1];
    const secret = element ? byMultibase.get(element.slice(1)) : undefined;
    return secret ? { ...secret, id } : null;
  };
}
