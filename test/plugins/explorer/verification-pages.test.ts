import t from 'tap';
import { randomUUID } from 'node:crypto';
import { buildDidCreate, buildTransfer, didForPublicKey, generateSeed, keyPairFromSeed, RpcClient, signAndEncode, UNIT, waitForReceipt } from '../../../node/client/index.js';
import { addressFromPublicKey } from '../../../node/protocol/address.js';
import { signVerificationRequest } from '../../../node/protocol/verification.js';
import { createExplorer } from '../../../plugins/explorer/index.js';
import { chromiumMissing, launchChromium } from '../../e2e/browser.js';
import { contrastProblems } from '../../e2e/contrast.js';
import { startTestNode } from '../../fixtures/real-node.js';
import { a11yProblems, watchConsole } from '../kyc/hosted/page-helpers.js';

/**
 * The explorer's verification pages in headless Chromium (as test/e2e/explorer-web.test.ts checks
 * the others), on an in-process node with one pending request: the list, the detail, the
 * transaction's type label and its link to the request, the home page's count, in both colour
 * schemes.
 */

const missing = chromiumMissing();

t.test('the verifications list and detail show what the API answers', { skip: missing }, async (t) => {
  const node = await startTestNode(t, { plugins: [createExplorer()] });
  const explorer = (node.plugins[0] as { url: string }).url;
  const rpc = new RpcClient(node.url);
  const api = async (path: string) => (await (await fetch(`${explorer}/api/v1${path}`)).json()) as Record<string, any>;
  const [requester, subject] = [generateSeed(), generateSeed()].map((s) => keyPairFromSeed(s));
  for (const [i, k] of [requester!, subject!].entries()) {
    const fund = signAndEncode(node.chainId, buildTransfer({ senderPubkey: node.dev.publicKey, nonce: i, to: addressFromPublicKey(k.publicKey), amount: 10n * UNIT }), node.dev.seed);
    await rpc.sendTransaction(fund.json);
    await waitForReceipt(rpc, fund.hash, { timeoutMs: 20_000 });
    const did = signAndEncode(node.chainId, buildDidCreate({ senderPubkey: k.publicKey, nonce: 0 }), k.seed);
    await rpc.sendTransaction(did.json);
    await waitForReceipt(rpc, did.hash, { timeoutMs: 20_000 });
  }
  const id = `req-${randomUUID()}`;
  const request = signVerificationRequest(
    {
      version: '1.0',
      requestId: id,
      timestamp: Date.now(),
      requester: { did: didForPublicKey('testnet', requester!.publicKey), purpose: 'account opening' },
      subject: { did: didForPublicKey('testnet', subject!.publicKey) },
      requiredClaims: [{ type: 'KYCCredential', constraints: { minimumAge: 18 }, acceptZKProof: true }],
      fee: '100000',
      chainId: node.chainId,
      nonce: 1,
    },
    requester!.seed,
  );
  const { txHash } = await rpc.call<{ txHash: string }>('ledger_submitVerificationRequest', [request]);
  await waitForReceipt(rpc, txHash, { timeoutMs: 20_000 });
  for (let i = 0; i < 100 && (await api('/verifications')).total < 1; i++) await new Promise((r) => setTimeout(r, 50));

  const browser = await launchChromium(t);
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  const errors = watchConsole(page);
  const open = async (hash: string, kind: string) => {
    await page.goto(`${explorer}/${hash}`);
    await page.waitForSelector(`main[data-page="${kind}"]:not([aria-busy])`, { timeout: 10_000 });
    t.same(await a11yProblems(page), [], `${hash}: the accessibility smoke check`);
  };

  await open('#/verifications', 'verifications');
  t.equal(await page.locator('header nav a[aria-current="page"]').innerText(), 'Verifications', 'linked from the nav');
  const row = page.locator('#verifications tr').first();
  t.equal(await page.locator('#verifications tr').count(), 1);
  t.match(await row.innerText(), /KYCCredential[\s\S]*0\.00100000 LGR[\s\S]*pending/);
  t.equal(await row.locator('a').first().getAttribute('href'), `#/verification/${id}`);

  await row.locator('a').first().click();
  await page.waitForSelector('main[data-page="verification"]:not([aria-busy])');
  t.equal(await page.locator('main [data-field="request_id"]').innerText(), id);
  t.equal(await page.locator('main [data-field="status"]').innerText(), 'pending');
  const text = await page.locator('main').innerText();
  t.match(text, 'Purpose\naccount opening');
  t.match(text, /KYCCredential\s+\{"minimumAge":18\}\s+yes/, 'the required claim and its constraint');
  t.match(text, 'No response yet');

  await open(`#/tx/${txHash}`, 'transaction');
  t.match(await page.locator('main').innerText(), 'Type\nVerification request', 'the type label');
  t.equal(await page.locator(`main a[href="#/verification/${id}"]`).count(), 1, 'a link to the request');

  await open('#/', 'home');
  t.match(await page.locator('main').innerText(), 'Verification requests\n1 (1 pending)', 'the network stats count it');

  for (const scheme of ['light', 'dark'] as const) {
    const ctx = await browser.newContext({ colorScheme: scheme });
    const p = await ctx.newPage();
    for (const [hash, kind] of [['#/verifications', 'verifications'], [`#/verification/${id}`, 'verification']] as const) {
      await p.goto(`${explorer}/${hash}`);
      await p.waitForSelector(`main[data-page="${kind}"]:not([aria-busy])`, { timeout: 10_000 });
      t.same(await contrastProblems(p), [], `${scheme}: ${hash}`);
    }
    await ctx.close();
  }
  t.same(errors, [], 'no console error');
});
