import { onlyQuery } from '../../../common/http/validate.js';
import type { RouteDeps } from '../router.js';

/**
 * What a browser console needs to run the OpenID code flow itself (docs/relay-operator.md,
 * "Sessions"): the provider's issuer and the client id the relay accepts id_tokens for. Public
 * and credential-free: both are in every id_token the relay accepts anyway. `oidc` is null when
 * plugins.relay.oidc is unset, so a console can say that operator login is not configured.
 */

/** what the console asks for: the id_token's subject, email and name (the tenant claim, when the provider adds one, comes with them) */
export const CONSOLE_SCOPES = 'openid email profile';

export function mountAuthConfig({ router, services, auth }: RouteDeps): void {
  router.add('GET', '/v1/auth/config', 'none', async (req) => {
    onlyQuery(req.query, []);
    const oidc = services.config.oidc;
    if (!oidc || !auth.oidc) return { oidc: null };
    return { oidc: { issuer: oidc.issuer, clientId: oidc.audience, scopes: CONSOLE_SCOPES } };
  });
}
