import { onlyQuery } from '../../../common/http/validate.js';
import { Reply } from '../../../common/http/router.js';
import type { SessionService } from '../../verification/sessions.js';
import type { KycRouter } from '../router.js';
import { readDocumentForm, readLivenessForm } from './verifications.js';

/**
 * The hosted flow's routes, authenticated by the session token in the path (seed 001 A):
 *
 *   GET  /v1/verifications/s/<sessionToken>                      {session} (the hosted view, with organization {name, logo?, color?})
 *   POST /v1/verifications/s/<sessionToken>/documents            the same form as the API-key upload; 201 {document}
 *   GET  /v1/verifications/s/<sessionToken>/liveness-challenge   {challenge}
 *   POST /v1/verifications/s/<sessionToken>/liveness             the same form as the API-key liveness
 *
 * An unknown or malformed token is a 404 (the token is the only credential; nothing tells a
 * wrong token from a missing session). `final=true` here completes the document step as on the
 * API-key route, and processing starts once every step of the level is complete.
 */

const TOKEN = '([^/]+)';

export function mountHostedApi(router: KycRouter, deps: { sessions: SessionService }): void {
  const { sessions } = deps;

  router.add('GET', new RegExp(`^/v1/verifications/s/${TOKEN}$`), 'none', async (req) => {
    onlyQuery(req.query, []);
    return { session: await sessions.hostedView(req.params[0]!) };
  });

  router.add('POST', new RegExp(`^/v1/verifications/s/${TOKEN}/documents$`), 'none', async (req) => {
    const ref = { token: req.params[0]! };
    await sessions.resolve(ref);
    const input = await readDocumentForm(req.ctx);
    return new Reply(201, { document: await sessions.uploadDocument(ref, input) });
  });

  router.add('GET', new RegExp(`^/v1/verifications/s/${TOKEN}/liveness-challenge$`), 'none', async (req) => {
    onlyQuery(req.query, []);
    return { challenge: await sessions.livenessChallenge({ token: req.params[0]! }) };
  });

  router.add('POST', new RegExp(`^/v1/verifications/s/${TOKEN}/liveness$`), 'none', async (req) => {
    const ref = { token: req.params[0]! };
    await sessions.resolve(ref);
    const { frames, challengeId } = await readLivenessForm(req.ctx);
    return { liveness: await sessions.submitLiveness(ref, frames, challengeId) };
  });
}
