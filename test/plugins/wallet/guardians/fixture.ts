import type { Test } from 'tap';
import { Mailer } from '../../../../plugins/common/mail/index.js';
import { Relay } from '../../../../plugins/wallet/chain/relay.js';
import { mountGuardians, type GuardianRouteDeps, type GuardianServices } from '../../../../plugins/wallet/http/routes/guardians.js';
import { startWallet, type SignedIn, type WalletHarness } from '../harness.js';

/**
 * The guardian routes on a real node, with the plugin's Mailer in outbox mode (no SMTP), as the
 * composition root builds it.
 */

export interface GuardianHarness extends WalletHarness {
  mailer: Mailer;
  services: GuardianServices;
  /** `owner` invites `guardian` by DID and `guardian` confirms with the token */
  makeGuardian(owner: SignedIn, guardian: SignedIn): Promise<string>;
}

export async function startGuardians(t: Test, o: { throttle?: GuardianRouteDeps['throttle']; config?: Record<string, unknown> } = {}): Promise<GuardianHarness> {
  let mailer!: Mailer;
  let services!: GuardianServices;
  const h = await startWallet(
    t,
    ({ ctx, base, users, router }) => {
      mailer = new Mailer({ store: ctx.store, from: base.config.email.from, log: ctx.log });
      mailer.start();
      t.teardown(() => mailer.stop());
      services = mountGuardians(router, { base, users, mailer, relay: new Relay(base), ...(o.throttle ? { throttle: o.throttle } : {}) });
    },
    o.config ? { config: o.config } : {},
  );
  return {
    ...h,
    mailer,
    services,
    async makeGuardian(owner, guardian) {
      const invite = await h.req('POST', '/v1/guardian/invite', { cookie: owner.cookie, body: { guardianDid: guardian.user.did } });
      if (invite.status !== 201) throw new Error(`invite: ${invite.status} ${invite.text}`);
      const confirm = await h.req('POST', '/v1/guardian/confirm', { cookie: guardian.cookie, body: { token: invite.body.token } });
      if (confirm.status !== 200) throw new Error(`confirm: ${confirm.status} ${confirm.text}`);
      return invite.body.id as string;
    },
  };
}
