import { HttpProblem } from '../../common/http/problems.js';
import type { Role } from '../types.js';
import type { KycCaller } from './auth-levels.js';

/**
 * What a member's role lets it do on the KYC surface (types.ts `ROLES`). API keys and the
 * operator token are not members: a route that names roles is for accounts, and the other two
 * pass only where `allow` lets them.
 */

/** the roles of each kind of action; a route names one of these rather than a list of its own */
export const CAN = {
  /** read sessions, credentials and the timeline */
  read: ['owner', 'admin', 'reviewer', 'developer'],
  /** decide live sessions on the review desk */
  review: ['owner', 'admin', 'reviewer'],
  /** API keys and webhooks */
  develop: ['owner', 'admin', 'developer'],
  /** the team, the organization's settings and branding, revoking credentials */
  administer: ['owner', 'admin'],
} as const satisfies Record<string, readonly Role[]>;

/** The caller's role; an account made before roles existed is its organization's owner. */
export const roleOf = (caller: KycCaller): Role | undefined => (caller.via === 'jwt' ? (caller.role ?? 'owner') : undefined);

/**
 * Throws 403 ROLE_FORBIDDEN unless the caller is an account whose role is among `roles`, or a
 * caller kind that `allow` names (`api-key`, `operator`).
 */
export function requireRole(caller: KycCaller, roles: readonly Role[], allow: ReadonlyArray<'api-key' | 'operator'> = []): void {
  if (caller.via !== 'jwt') {
    if ((allow as readonly string[]).includes(caller.via)) return;
    throw new HttpProblem('forbidden', `this action is for a member of the organization signed in with an account, not an ${caller.via === 'api-key' ? 'API key' : 'operator token'}`, { code: 'ROLE_FORBIDDEN' });
  }
  const role = roleOf(caller)!;
  if (!roles.includes(role)) throw new HttpProblem('forbidden', `your role (${role}) cannot do this; it needs ${roles.join(' or ')}`, { code: 'ROLE_FORBIDDEN' });
}
