import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { RpcClient } from '../../../node/client/index.js';
import { freePortRange } from '../../../node/devnet/ports.js';
import { spawnNode, type NodeProcess } from '../chaos/node-process.js';
import { KycClient } from '../kyc/client.js';
import { testJpeg } from '../kyc/images.js';
import { subjectsOnChain } from '../kyc/subjects.js';
import type { ConsolePage } from './page.js';

/**
 * The KYC dashboard's part of bench/consoles: a `ledger init` network with the KYC plugin, an
 * organization with both kinds of key, a webhook, a team, sandbox sessions at level 2 (document
 * and liveness) whose passes become credentials on chain, and live sessions waiting on the
 * review desk. Each visit signs in with the owner's password, as a person does.
 */

const EMAIL = 'owner@bench.example';
const PASSWORD = 'a bench passphrase of length';
export const KYC_DATA = { sandbox_sessions: 20, credentials: 20, live_sessions_in_review: 5, team_invitations: 2, api_keys: 2, webhooks: 1 };

export async function startKyc(dir: string, root: string): Promise<{ node: NodeProcess; base: string; dataDir: string }> {
  const dataDir = join(dir, 'kyc');
  await mkdir(dataDir, { recursive: true });
  const bin = join(root, 'bin', 'ledger.js');
  execFileSync(process.execPath, [bin, 'init', '--data-dir', dataDir], { stdio: 'ignore' });
  await writeFile(join(dataDir, 'config.json'), JSON.stringify({ plugins: { kyc: { enabled: true } } }, null, 2) + '\n');
  const [rpcPort, p2pPort, kycPort] = await freePortRange(3).then((p) => [p, p + 1, p + 2]);
  const node = await spawnNode({ bin, dataDir, rpcPort: rpcPort!, p2pPort: p2pPort!, logFile: join(dir, 'kyc.log'), plugins: 'kyc', args: ['--kyc-port', String(kycPort)], readyTimeoutMs: 60_000 });
  return { node, base: `http://127.0.0.1:${kycPort}`, dataDir };
}

/** Fills the service; returns a live session waiting for review and a completed sandbox one. */
export async function seedKyc(base: string, rpcUrl: string, dataDir: string): Promise<{ inReview: string; completed: string }> {
  const api = new KycClient(base);
  await api.register(EMAIL, PASSWORD, 'Bench Owner');
  await api.createKey('sandbox');
  await api.createKey('live');
  await api.addWebhook('http://127.0.0.1:9/kyc-events');
  for (const [email, role] of [['rev@bench.example', 'reviewer'], ['dev@bench.example', 'developer']]) await api.call('POST', '/v1/team/invitations', { body: { email, role }, auth: 'jwt', expect: 201 });
  const subjects = await subjectsOnChain(new RpcClient(rpcUrl), dataDir, 4);

  const document = testJpeg(1000, 700, 1);
  const frames = [2, 3, 4].map((seed) => testJpeg(320, 240, seed));
  const complete = async (body: Record<string, unknown>): Promise<string> => {
    const { session } = await api.createSession({ level: 2, ...body });
    await api.uploadDocument(session.id, document, { type: 'passport', side: 'front', final: true });
    await api.livenessChallenge(session.id);
    await api.liveness(session.id, frames);
    return session.id as string;
  };
  const sandbox: string[] = [];
  for (let i = 0; i < KYC_DATA.sandbox_sessions; i++) sandbox.push(await complete({ sandbox: true, sandboxOutcome: 'pass', subjectDid: subjects[i % subjects.length], metadata: { order: i } }));
  const live: string[] = [];
  for (let i = 0; i < KYC_DATA.live_sessions_in_review; i++) live.push(await complete({ subjectDid: subjects[i % subjects.length] }));

  // every sandbox pass registers a credential on chain: wait for the last
  for (const deadline = Date.now() + 180_000; ; ) {
    const { total } = await api.call<{ total: number }>('GET', '/v1/credentials?mode=sandbox&limit=1', { auth: 'jwt' });
    if (total >= KYC_DATA.credentials) break;
    if (Date.now() > deadline) throw new Error(`only ${total} of ${KYC_DATA.credentials} credentials were issued in 3 minutes`);
    await new Promise((r) => setTimeout(r, 500));
  }
  return { inReview: live[0]!, completed: sandbox.at(-1)! };
}

/** The dashboard's pages, each signed in with the owner's password on its sign-in screen. */
export function kycPages(base: string, ids: { inReview: string; completed: string }): ConsolePage[] {
  const signIn = async (page: Page) => {
    await page.waitForSelector('main[data-page="sign in"]:not([aria-busy])');
    await page.getByLabel('Email', { exact: true }).fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  const pages: Array<[string, string, string]> = [
    ['sessions', '#/sessions', 'sessions'],
    ['session', `#/session/${ids.completed}`, 'session'],
    ['review desk', '#/review', 'review'],
    ['review session', `#/review/${ids.inReview}`, 'review session'],
    ['credentials', '#/credentials', 'credentials'],
    ['api keys', '#/api-keys', 'api keys'],
    ['webhooks', '#/webhooks', 'webhooks'],
    ['team', '#/team', 'team'],
    ['organization', '#/organization', 'organization'],
  ];
  return pages.map(([name, hash, dataPage]) => ({ console: 'kyc', name, url: `${base}/dashboard/${hash}`, signIn, ready: `main[data-page="${dataPage}"]:not([aria-busy])`, mark: 'dashboard:first-render', since: 'dashboard:sign-in' }));
}
