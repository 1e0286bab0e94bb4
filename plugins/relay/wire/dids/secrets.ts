import type { Secret, SecretsResolver } from 'didcomm-node';

/**
 * A didcomm-node SecretsResolver over a fixed list of secrets (the mediator's own keys, from
 * `didKeyFromSeed(seed).secrets`). It answers only for the exact key ids it holds.
 */
export function staticSecretsResolver(secrets: readonly Secret[]): SecretsResolver {
  const byId = new Map(secrets.map((s) => [s.id, s] as const));
  return {
    get_secret: async (id: string) => byId.get(id) ?? null,
    find_secrets: async (ids: string[]) => ids.filter((id) => byId.has(id)),
  };
}
