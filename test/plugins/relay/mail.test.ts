import t from 'tap';
import { MAIL_RESULTS } from '../../../plugins/common/mail/index.js';
import { startSmtp } from '../common/mail/smtp.js';
import { startRelay } from './harness.js';

/** The relay's mailer reports on the node's registry the plugin host hands it, as plugin "relay". */

t.test("the relay's mail metrics are on the node's registry while it runs", async (t) => {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  const relay = await startRelay(t, { config: { email: { smtpUrl: smtp.url, from: 'Relay <relay@example.org>' } } });
  const series = async (name: string) => ((await relay.metrics.getSingleMetric(name)?.get())?.values ?? []).filter((v) => v.labels.plugin === 'relay');
  await t.resolveMatch(series('ledger_mail_pending'), [{ value: 0 }]);
  t.same((await series('ledger_mail_total')).map((v) => [v.labels.result, v.value]), MAIL_RESULTS.map((r) => [r, 0]), 'every result, from 0');
  await relay.host.stop();
  t.same(await series('ledger_mail_pending'), [], 'a stopped relay reports no queue');
});
