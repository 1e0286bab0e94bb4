import { Reply } from '../../../common/http/router.js';
import { validation } from '../../../common/http/problems.js';
import { onlyQuery } from '../../../common/http/validate.js';
import type { Mailer } from '../../../common/mail/index.js';
import { GuardianInvites, parseGuardianId, parseInvite, parseToken } from '../../guardians/invites.js';
import { PolicyRelay } from '../../guardians/policy.js';
import { readTransactionText, type Relay } from '../../chain/relay.js';
import { parseInitiate } from '../../guardians/initiate.js';
import { parseApproval, parseRequestId, RecoveryService, type RecoveryDeps } from '../../guardians/recovery.js';
import { GuardianStore } from '../../guardians/store.js';
import type { WalletBase } from '../../services.js';
import type { UserStore } from '../../users/store.js';
import { remoteAddress } from '../login-limit.js';
import type { WalletRequest, WalletRouter } from '../router.js';
import { refuseSecretParams, refuseSecrets } from '../secrets.js';

/**
 * Guardians and social recovery (seed 001 B; docs/wallet.md, "Guardians and recovery"). Session
 * routes act for the signed-in owner or guardian; initiate, finalize and the status need no
 * session: whoever lost the key has none, and the request's unguessable UUID, the guardians'
 * signatures and the chain's own checks are the authority.
 */

export interface GuardianRouteDeps {
  base: WalletBase;
  users: Pick<UserStore, 'get' | 'byDid'>;
  /** the plugin's one Mailer (SMTP or the outbox), for email invites */
  mailer: Pick<Mailer, 'send'>;
  /** submits the relayed transactions (its mempool refusals are the wallet's Problems) */
  relay: Pick<Relay, 'submit'>;
  /** initiation limits instead of config `recovery`'s hourly ones */
  throttle?: RecoveryDeps['throttle'];
  /** wraps the recovery service before the routes use it (the metrics count its steps) */
  wrapRecovery?: (recovery: RecoveryService) => RecoveryService;
}

export interface GuardianServices {
  store: GuardianStore;
  invites: GuardianInvites;
  recovery: RecoveryService;
  policy: PolicyRelay;
}

const UUID_SEGMENT = '([^/]+)';

export function mountGuardians(router: WalletRouter, deps: GuardianRouteDeps): GuardianServices {
  const { base, users, mailer } = deps;
  const store = new GuardianStore(base.db);
  const invites = new GuardianInvites({ base, store, users, mailer });
  const made = new RecoveryService({ base, store, users, relay: deps.relay, ...(deps.throttle ? { throttle: deps.throttle } : {}) });
  const recovery = deps.wrapRecovery ? deps.wrapRecovery(made) : made;
  const policy = new PolicyRelay({ base, store, relay: deps.relay });

  /** the JSON object body, secrets refused before anything reads it */
  const body = async (req: WalletRequest): Promise<Record<string, unknown>> => {
    const b = await req.body();
    refuseSecrets(b);
    return b;
  };
  const noQuery = (req: WalletRequest): void => {
    refuseSecretParams(req.query);
    onlyQuery(req.query, []);
  };

  router.add('GET', '/v1/guardian/my-guardians', 'session', async (req) => {
    noQuery(req);
    return invites.myGuardians(req.caller);
  });

  router.add('POST', '/v1/guardian/invite', 'session', async (req) => {
    noQuery(req);
    return new Reply(201, await invites.invite(req.caller, parseInvite(await body(req))));
  });

  router.add('POST', '/v1/guardian/confirm', 'session', async (req) => {
    noQuery(req);
    return invites.confirm(req.caller, parseToken(await body(req)));
  });

  router.add('GET', '/v1/guardian/pending-invites', 'session', async (req) => {
    noQuery(req);
    return invites.pendingInvites(req.caller);
  });

  router.add('GET', '/v1/guardian/pending-requests', 'session', async (req) => {
    noQuery(req);
    return recovery.pendingFor(req.caller);
  });

  router.add('GET', '/v1/guardian/recovery-prep', 'session', async (req) => {
    noQuery(req);
    return policy.prep(req.caller);
  });

  router.add('POST', '/v1/guardian/policy', 'session', async (req) => {
    noQuery(req);
    return policy.relay(req.caller, await readTransactionText(req.ctx));
  });

  // before the status route, whose pattern would take `challenge` for a request id
  router.add('GET', '/v1/guardian/recovery/challenge', 'none', async (req) => {
    noQuery(req);
    return new Reply(200, await recovery.challenge(), { 'cache-control': 'no-store' });
  });

  router.add('POST', '/v1/guardian/recovery/initiate', 'none', async (req) => {
    noQuery(req);
    const input = parseInitiate(await body(req));
    const { answer, created } = await recovery.initiate(input, remoteAddress(req.ctx, base.config.session.trustProxy));
    return new Reply(created ? 201 : 200, answer);
  });

  router.add('POST', new RegExp(`^/v1/guardian/recovery/${UUID_SEGMENT}/approve$`), 'session', async (req) => {
    noQuery(req);
    const requestId = parseRequestId(req.params[0]!);
    return recovery.approve(requestId, req.caller, parseApproval(await body(req)));
  });

  router.add('POST', new RegExp(`^/v1/guardian/recovery/${UUID_SEGMENT}/finalize$`), 'none', async (req) => {
    noQuery(req);
    const requestId = parseRequestId(req.params[0]!);
    return recovery.finalize(requestId, await readTransactionText(req.ctx));
  });

  router.add('GET', new RegExp(`^/v1/guardian/recovery/${UUID_SEGMENT}$`), 'none', async (req) => {
    noQuery(req);
    return recovery.status(parseRequestId(req.params[0]!));
  });

  router.add('DELETE', /^\/v1\/guardian\/([^/]+)$/, 'session', async (req) => {
    noQuery(req);
    return invites.remove(req.caller, parseGuardianId(req.params[0]!));
  });

  return { store, invites, recovery, policy };
}
