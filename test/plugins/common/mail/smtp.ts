import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { SMTPServer } from 'smtp-server';
import type { Logger } from '../../../../node/logging.js';

/**
 * A real SMTP server for tests (smtp-server) on 127.0.0.1 (port 0 unless given: a server
 * restarted on its port comes back at the same URL), plain text (no STARTTLS, no auth), that
 * keeps what it receives. `reject` makes it answer every recipient with that code (550: refused
 * for good, 451: try later); `refuse` is `reject = 550`. `rcpts` counts the recipients it was
 * offered, accepted or not: one per attempt.
 */

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  /** the text body, quoted-printable decoded */
  text: string;
}

export interface TestSmtp {
  url: string;
  received: ReceivedMail[];
  refuse: boolean;
  reject: number | null;
  readonly rcpts: number;
  /** the next mail received (or one already received beyond `after`) */
  next(after?: number, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startSmtp(opts: { port?: number } = {}): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  const state: { reject: number | null; rcpts: number } = { reject: null, rcpts: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, cb) {
      state.rcpts++;
      if (state.reject !== null) {
        cb(Object.assign(new Error(`mailbox ${address.address} unavailable`), { responseCode: state.reject }));
        return;
      }
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject: /^Subject: (.*)$/im.exec(raw)?.[1]?.trim() ?? '',
          text: body(raw),
        });
        for (const w of waiters.splice(0)) w();
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = ((server as unknown as { server: { address(): AddressInfo } }).server.address()).port;

  const next: TestSmtp['next'] = async (after = received.length, timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs;
    while (received.length <= after) {
      if (Date.now() > deadline) throw new Error('no mail arrived');
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return received[after]!;
  };

  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    get refuse() {
      return state.reject === 550;
    },
    set refuse(v: boolean) {
      state.reject = v ? 550 : null;
    },
    get reject() {
      return state.reject;
    },
    set reject(v: number | null) {
      state.reject = v;
    },
    get rcpts() {
      return state.rcpts;
    },
    next,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The body after the headers, quoted-printable decoded when it says so. */
function body(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const headers = raw.slice(0, split);
  const text = raw.slice(split + 4);
  if (!/content-transfer-encoding:\s*quoted-printable/i.test(headers)) return text;
  return text.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** A real pino logger whose lines are kept, to check what was logged. */
export function recordingLogger(): { log: Logger; lines: Array<Record<string, any>> } {
  const lines: Array<Record<string, any>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
      cb();
    },
  });
  return { log: pino({ level: 'info' }, stream) as unknown as Logger, lines };
}
