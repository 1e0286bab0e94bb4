import type { ApiKeyMode, Role } from '../types.js';

/**
 * The route levels of the KYC surface (seed 001 part A, "Authentication"):
 *   none      register, login, password reset, provider redirects, hosted session-token routes
 *   jwt       an account JWT: /auth/me, /auth/totp/*, /api-keys*
 *   apiKey    `x-api-key`: the non-hosted /verifications* routes
 *   bearer    `Authorization: Bearer <JWT or API key>`: webhook management
 *   operator  the plugin's operator token
 *   member    `x-api-key` as on apiKey routes, else `Authorization: Bearer <account JWT or operator
 *             token>`: session reads, evidence, the review desk, credentials; the route checks the
 *             caller's kind and role (http/roles.ts)
 */
export type KycLevel = 'none' | 'jwt' | 'apiKey' | 'bearer' | 'operator' | 'member';

export interface KycCaller {
  /** the caller's organization; '' for the operator, who acts across organizations */
  organizationId: string;
  via: 'jwt' | 'api-key' | 'operator';
  /** the account (JWT) */
  userId?: string;
  /** the account's role (JWT); http/roles.ts checks it */
  role?: Role;
  /** the key (API key): sandbox keys create only sandbox sessions */
  apiKey?: { id: string; mode: ApiKeyMode };
}
