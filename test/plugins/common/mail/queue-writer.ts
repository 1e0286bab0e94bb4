/**
 * Child process for queue.test.ts: opens the on-disk store at argv[2], queues mails to the SMTP
 * server at argv[3] (down while this runs) forever, printing `queued <id>` once each queue()
 * returns. The parent kills it with SIGKILL at a random moment.
 */
import { createLogger } from '../../../../node/logging.js';
import { openDatabase } from '../../../../node/state/db.js';
import { Mailer } from '../../../../plugins/common/mail/index.js';

const [dir, smtpUrl] = process.argv.slice(2);
if (!dir || !smtpUrl) throw new Error('usage: queue-writer.ts <dir> <smtp url>');
const db = await openDatabase(dir);
const mailer = new Mailer({ store: db.pluginStore('relay'), smtpUrl, from: 'relay@ledger.test', log: createLogger({ level: 'silent' }), retryDelaysMs: Array(20).fill(50), timeoutMs: 1000 });
mailer.start();
for (let n = 0; ; n++) {
  const { id } = await mailer.queue({ to: `ops${n}@example.org`, subject: `event ${n}`, text: `event ${n}` });
  process.stdout.write(`queued ${id}\n`);
  // a few dozen before the kill, well under the queue's cap
  await new Promise((resolve) => setTimeout(resolve, 5));
}
