import t from 'tap';
import { randomUUID } from 'node:crypto';
import {
  addressFromPublicKey,
  buildCredentialRequest,
  buildDidCreate,
  buildDidDeactivate,
  buildTransfer,
  didForPublicKey,
  generateSeed,
  keyPairFromSeed,
  RpcClient,
  signAndEncode,
  UNIT,
  waitForReceipt,
} from '../../node/client/index.js';
import { generateAccountKey } from '../../node/config/keyfile.js';
import { a11yProblems, SCREENSHOTS, watchConsole } from '../plugins/kyc/hosted/page-helpers.js';
import { contrastProblems } from './contrast.js';
import { chromiumMissing, launchChromium } from './browser.js';
import { devKey, startNodeProcess, tempDataDir } from './harness.js';

/**
 * The explorer's web app in headless Chromium against a real node process with the explorer on:
 * transfers, two DIDs (one deactivated) and a registered credential; each page type shows what
 * the REST API answers for the same item, search finds each kind, a 404 and an empty search
 * explain themselves, and a new block appears on the home page live, without a reload.
 */

const missing = chromiumMissing();
if (missing) t.fail(missing);

/** The app's amount form, from the API's decimal string, computed here with bigint. */
const tokens = (units: string) => {
  const v = BigInt(units);
  return `${(v / UNIT).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${(v % UNIT).toString().padStart(8, '0')} LGR`;
};

t.test('every page type shows the API facts, search finds each kind, blocks arrive live', { skip: missing }, async (t) => {
  const dir = await tempDataDir(t);
  const node = await startNodeProcess(t, dir, { logLevel: 'warn', plugins: { explorer: 0 } });
  const explorer = node.plugins['explorer']!;
  t.ok(explorer, 'the explorer runs');
  const rpc = new RpcClient(node.url);
  const dev = await devKey(dir);
  const { chain_id: chainId } = await rpc.chainInfo();
  const send = async (unsigned: Parameters<typeof signAndEncode>[1], seed: Uint8Array) => {
    const s = signAndEncode(chainId, unsigned, seed);
    await rpc.sendTransaction(s.json);
    const receipt = await waitForReceipt(rpc, s.hash, { timeoutMs: 20_000 });
    t.equal(receipt.status, 'success', `${unsigned.payload.kind} succeeds`);
    return s.hash;
  };
  const api = async (path: string) => {
    const res = await fetch(`${explorer}/api/v1${path}`);
    if (!res.ok) throw new Error(`${path}: ${res.status}`);
    return (await res.json()) as Record<string, any>;
  };

  // the chain: a transfer with every decimal place used, an issuer and a subject with DIDs, a credential, a deactivated DID
  const issuer = keyPairFromSeed(generateSeed());
  const subject = keyPairFromSeed(generateSeed());
  const issuerDid = didForPublicKey('testnet', issuer.publicKey);
  const subjectDid = didForPublicKey('testnet', subject.publicKey);
  const stranger = generateAccountKey('testnet').address;
  let nonce = 0n;
  const transferHash = await send(buildTransfer({ senderPubkey: dev.publicKey, nonce: nonce++, to: stranger, amount: 123_456_789n }), dev.seed);
  for (const k of [issuer, subject]) {
    await send(buildTransfer({ senderPubkey: dev.publicKey, nonce: nonce++, to: addressFromPublicKey(k.publicKey), amount: 100n * UNIT }), dev.seed);
    await send(buildDidCreate({ senderPubkey: k.publicKey, nonce: 0 }), k.seed);
  }
  // 20 more to the stranger, back to back: 21 in its history, two pages
  let last = '';
  for (let i = 0; i < 20; i++) {
    const s = signAndEncode(chainId, buildTransfer({ senderPubkey: dev.publicKey, nonce: nonce++, to: stranger, amount: BigInt(i + 1) }), dev.seed);
    last = await rpc.sendTransaction(s.json);
  }
  await waitForReceipt(rpc, last, { timeoutMs: 20_000 });
  const uuid = randomUUID();
  const credentialId = `urn:ledger:credential:${uuid}`;
  await send(
    buildCredentialRequest({ senderPubkey: issuer.publicKey, nonce: 1, credentialId: uuid, credentialType: 'KYCCredential', kycLevel: 2, subjectDid, issuerDid, hash: new Uint8Array(32).fill(7), evidenceDigest: new Uint8Array(32), statusList: 0, statusIndex: 0 }),
    issuer.seed,
  );
  for (let i = 0; i < 200 && (await rpc.getCredentialRequest(credentialId))?.status !== 'registered'; i++) await new Promise((r) => setTimeout(r, 100));
  // a transaction that fails in execution, its fee still paid: a second deactivation, sent first
  // behind a nonce gap, so admission checks it while the DID is still active; once the gap is
  // filled both are ready together and commit in one block, where the second one fails
  const doomed = signAndEncode(chainId, buildDidDeactivate({ senderPubkey: subject.publicKey, nonce: 2, did: subjectDid }), subject.seed);
  await rpc.sendTransaction(doomed.json);
  await send(buildDidDeactivate({ senderPubkey: subject.publicKey, nonce: 1, did: subjectDid }), subject.seed);
  const failedHash = doomed.hash;
  t.match((await waitForReceipt(rpc, failedHash, { timeoutMs: 20_000 })).status, /^failed: /, 'the second deactivation fails in execution');
  const head = (await rpc.canonHead())!.seq;
  for (let i = 0; i < 200 && ((await api('/blocks')).total as number) <= head; i++) await new Promise((r) => setTimeout(r, 50));
  t.ok((await api(`/credentials/${credentialId}`)).credential_id, 'the credential is registered and indexed');

  const browser = await launchChromium(t);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  // an API 404 (an address that is no validator, a missing block) is logged by the browser, not an error of the app
  const errors = watchConsole(page, [/status of 404/]);
  const a11y: string[] = [];
  /** Opens an app URL, waits until the page of that kind is rendered, and runs the accessibility smoke check. */
  const open = async (hash: string, kind: string) => {
    await page.goto(`${explorer}/${hash}`);
    await page.waitForSelector(`main[data-page="${kind}"]:not([aria-busy])`, { timeout: 10_000 });
    for (const problem of await a11yProblems(page)) a11y.push(`${hash || '/'}: ${problem}`);
  };
  const field = (name: string) => page.locator(`main [data-field="${name}"]`).first().innerText();
  const shot = (name: string) => page.screenshot({ path: `${SCREENSHOTS}explorer-${name}.png`, fullPage: true });

  await t.test('home: network stats and the latest blocks and transactions', async (t) => {
    await open('', 'home');
    // how fast it renders is bench:explorer-web's figure, from this mark
    t.equal(await page.evaluate("performance.getEntriesByName('explorer:first-render').length"), 1, 'the app marks its first render');
    t.equal(await page.locator('main h1').textContent(), 'Ledger explorer');
    // one snapshot of the rows: new blocks are prepended live
    const rows = (await page.evaluate("[...document.querySelectorAll('#latest-blocks tr')].map((tr) => [tr.querySelector('a').getAttribute('href'), tr.querySelector('td:nth-child(2) span').title])")) as [string, string][];
    t.equal(rows.length, (await api('/blocks?limit=10')).data.length, 'the latest blocks, as many as the API lists');
    const heights = rows.map(([link]) => Number(/^#\/block\/(\d+)$/.exec(link)?.[1]));
    t.same(heights, [...heights].sort((x, y) => y - x), 'newest first');
    for (const [i, [, hash]] of rows.entries()) t.equal(hash, (await api(`/blocks/${heights[i]}`)).hash, `block ${heights[i]}: the hash the API has`);
    const stats = await api('/stats/network');
    const text = await page.locator('main').innerText();
    t.match(text, `Transactions\n${stats.transactions.total_transactions}`);
    t.match(text, `DIDs\n${stats.dids.total_dids} (${stats.dids.active_dids} active)`);
    t.match(text, `Total staked\n${tokens(stats.validators.total_staked)}`);
    const latest = await api('/txs?limit=10');
    t.equal(await page.locator('#latest-txs tr').count(), latest.data.length);
    t.equal(await page.locator('#latest-txs tr').first().locator('a').first().getAttribute('href'), `#/tx/${latest.data[0].hash}`);
    await shot('home');
    // the picture docs/images/explorer-home.png is taken from: stats, latest blocks and transactions,
    // light, desktop width, at the density a README shows it (0.75), so that it stays small
    const readme = await browser.newContext({ viewport: { width: 1280, height: 1300 }, deviceScaleFactor: 0.75, colorScheme: 'light' });
    const r = await readme.newPage();
    await r.goto(`${explorer}/`);
    await r.waitForSelector('main[data-page="home"]:not([aria-busy])');
    await r.screenshot({ path: `${SCREENSHOTS}explorer-home-readme.png`, clip: { x: 0, y: 0, width: 1280, height: 1300 } });
    await readme.close();
  });

  await t.test('block, transaction and address pages', async (t) => {
    const tx = await api(`/txs/${transferHash}`);
    await open(`#/block/${tx.block_height}`, 'block');
    const block = await api(`/blocks/${tx.block_height}`);
    t.equal(await field('hash'), block.hash);
    t.equal(await field('tx_count'), String(block.tx_count));
    t.equal(await page.locator('main tbody tr').count(), block.transactions.length);
    await shot('block');
    t.equal(await page.locator('main a[rel="next"]').count(), 1, 'a block below the head links the next one');
    // the head: idle blocks keep coming, so retry until no block landed while the page loaded
    let atHead = false;
    for (let i = 0; i < 5 && !atHead; i++) {
      const latest = await api('/blocks/latest');
      await open(`#/block/${latest.height}`, 'block');
      const next = await page.locator('main a[rel="next"]').count();
      atHead = (await api('/blocks/latest')).height === latest.height;
      if (atHead) t.equal(next, 0, 'the head links no next block');
    }
    t.ok(atHead, 'the head block page was checked');

    await open(`#/tx/${transferHash}`, 'transaction');
    t.equal(await field('hash'), tx.hash);
    t.equal(await field('amount'), tokens(tx.amount));
    t.equal(await field('amount'), '1.23456789 LGR', 'eight decimals, exactly');
    t.equal(await field('fee'), tokens(tx.fee));
    t.match(await page.locator('main').innerText(), /Status\s+success/);
    t.match(await page.locator('main').innerText(), `Payload: Transfer`);
    await shot('transaction');

    const failed = await api(`/txs/${failedHash}`);
    t.equal(failed.status, 'failed');
    t.ok(failed.error_reason, 'the API has the reason');
    await open(`#/tx/${failedHash}`, 'transaction');
    t.match(await page.locator('main').innerText(), /Status\s+failed/);
    t.equal(await field('error_reason'), failed.error_reason, 'the failure reason, as the API has it');
    t.equal(await field('fee'), tokens(failed.fee), 'the fee, paid all the same');
    t.match(await page.locator('main').innerText(), 'Payload: DidDeactivate');
    await shot('transaction-failed');

    const a = await api(`/addresses/${dev.address}`);
    await open(`#/address/${dev.address}`, 'address');
    t.equal(await field('balance'), tokens(a.balance));
    t.equal(await field('nonce'), a.nonce);
    t.equal(await field('tx_count'), String(a.tx_count));
    const history = await api(`/addresses/${dev.address}/txs`);
    t.equal(await page.locator('#history tr').count(), history.data.length);
    await shot('address');

    const s = await api(`/addresses/${stranger}`);
    await open(`#/address/${stranger}`, 'address');
    t.equal(await field('balance'), tokens(s.balance));
    t.equal(await field('tx_count'), '21');
    t.equal(await page.locator('#history tr').count(), 20, 'a page of 20');
    await page.getByRole('link', { name: 'Older →' }).click();
    await page.waitForURL(new RegExp(`#/address/${stranger}\\?page=2$`));
    await page.getByText('Page 2 of 2 (21 in all)').waitFor();
    const second = await api(`/addresses/${stranger}/txs?page=2`);
    t.equal(await page.locator('#history tr').count(), second.data.length);
    t.equal(await page.locator('#history tr a').first().getAttribute('href'), `#/tx/${second.data[0].hash}`, 'page 2 is the API page 2');
  });

  await t.test('DID, credential, issuer and validator pages', async (t) => {
    const did = await api(`/dids/${issuerDid}`);
    await open(`#/did/${issuerDid}`, 'did');
    t.equal(await field('credentials_count'), String(did.credentials_count));
    t.match(await field('active'), 'active');
    t.match(await page.locator('main pre.json').innerText(), did.live_document.id);
    await shot('did');

    const gone = await api(`/dids/${subjectDid}`);
    t.equal(gone.active, false);
    await open(`#/did/${subjectDid}`, 'did');
    t.match(await page.locator('main .alert').innerText(), /Deactivated/);
    t.match(await field('active'), 'deactivated');
    await shot('did-deactivated');

    const c = await api(`/credentials/${credentialId}`);
    await open(`#/credential/${credentialId}`, 'credential');
    t.equal(await field('valid'), c.verification.valid ? 'valid' : 'not valid');
    t.equal(await field('revoked'), c.revoked ? 'revoked' : 'not revoked');
    t.match(await page.locator('main').innerText(), `Issuer\n${issuerDid}`);
    await shot('credential');

    const stats = await api(`/credentials/issuers/${issuerDid}`);
    await open(`#/issuer/${issuerDid}`, 'issuer');
    t.equal(await field('credentials_issued'), String(stats.credentials_issued));
    t.equal(await field('active_credentials'), String(stats.active_credentials));
    t.equal(await page.locator('main tbody tr').count(), 1);
    await open('#/issuers', 'issuers');
    t.equal(await page.locator('main tbody tr').count(), (await api('/credentials/issuers')).data.length);

    const validators = await api('/validators');
    await open('#/validators', 'validators');
    const first = page.locator('main tbody tr').first();
    t.equal(await page.locator('main tbody tr').count(), validators.data.length);
    t.match(await first.innerText(), tokens(validators.data[0].staked));
    t.match(await first.innerText(), new RegExp(`\\b${validators.data[0].blocks_proposed}\\b`));
    await shot('validators');
    const v = await api(`/validators/${validators.data[0].address}`);
    await open(`#/address/${v.address}`, 'address');
    t.match(await page.locator('main').innerText(), `Reputation\n${v.reputation}`, "a validator's address page shows its record");
    t.ok((await page.locator('main tbody tr').count()) >= v.recent_blocks.length, 'and the blocks it proposed last');
  });

  await t.test('charts over each range', async (t) => {
    for (const range of ['1h', '24h', '7d', '30d']) {
      await open(`#/charts/${range}`, 'charts');
      const dids = await api(`/stats/charts?metric=dids&range=${range}`);
      t.equal(await page.locator('section[data-metric="dids"] [data-field="total"]').innerText(), String(dids.data.reduce((n: number, b: { count: number }) => n + b.count, 0)), `${range}: DIDs`);
      t.equal(await page.locator('section[data-metric="blocks"] rect').count(), dids.data.length, `${range}: one bar a bucket`);
    }
    await shot('charts');
  });

  await t.test('search finds each kind; a miss and a 404 explain themselves', async (t) => {
    const tx = await api(`/txs/${transferHash}`);
    const cases: Array<[string, RegExp]> = [
      [String(tx.block_height), new RegExp(`#/block/${tx.block_height}$`)],
      [transferHash, new RegExp(`#/tx/${transferHash}$`)],
      [stranger, new RegExp(`#/address/${stranger}$`)],
      [issuerDid, new RegExp(`#/did/${issuerDid}$`)],
      [uuid, new RegExp(`#/credential/${credentialId}$`)],
    ];
    for (const [q, where] of cases) {
      await open('', 'home');
      await page.getByLabel('Search the chain').fill(q);
      await page.keyboard.press('Enter');
      await page.waitForURL(where, { timeout: 10_000 });
      await page.waitForSelector('main:not([aria-busy]) h1');
      t.pass(`${q} leads to ${where}`);
    }
    await open('#/search?q=nothing-like-this', 'not found');
    t.match(await page.locator('main').innerText(), /Nothing on this chain matches “nothing-like-this”/);
    await shot('search-miss');
    await open('#/block/99999999', 'not found');
    t.match(await page.locator('main h1').innerText(), 'Not found');
    t.match(await page.locator('main').innerText(), /no block at height 99999999/);
    await open('#/no/such/page', 'not found');
    await shot('not-found');
  });

  await t.test('a new block appears on the home page without a reload', async (t) => {
    await open('', 'home');
    await page.evaluate('window.notReloaded = true');
    const before = Number(await page.locator('#latest-blocks tr').first().locator('td').first().innerText());
    const hash = await send(buildTransfer({ senderPubkey: dev.publicKey, nonce: nonce++, to: stranger, amount: 1n }), dev.seed);
    await page.waitForSelector(`#latest-blocks tr:first-child td:first-child a[href^="#/block/"]:not([href="#/block/${before}"])`, { timeout: 15_000 });
    await page.waitForSelector(`#latest-txs a[href="#/tx/${hash}"]`, { timeout: 15_000 });
    t.ok(Number(await page.locator('#latest-blocks tr').first().locator('td').first().innerText()) > before, 'a higher block on top');
    t.equal(await page.evaluate('window.notReloaded'), true, 'the same document: no reload');
    t.equal(await field('latest_height'), await page.locator('#latest-blocks tr').first().locator('td').first().innerText());
    await shot('live');
  });

  await t.test('keyboard, phone width and dark mode', async (t) => {
    await open('', 'home');
    await page.keyboard.press('Tab');
    t.equal(await page.evaluate('document.activeElement.id'), 'skip', 'the first Tab reaches the skip link');
    await page.keyboard.press('Enter');
    t.equal(await page.evaluate('document.activeElement.id'), 'main', 'it moves focus to the content');
    t.match(page.url(), new RegExp(`${explorer}/#?$`), 'without a route change');
    await page.keyboard.press('Tab');
    t.equal(await page.evaluate('document.activeElement.id'), 'q', 'the next Tab is the search box');
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark', isMobile: true });
    const p = await phone.newPage();
    const phoneErrors = watchConsole(p, [/status of 404/]);
    await p.goto(`${explorer}/#/tx/${transferHash}`);
    await p.waitForSelector('main[data-page="transaction"]:not([aria-busy])');
    t.equal(await p.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), true, 'no sideways scrolling on a phone');
    t.not(await p.evaluate('getComputedStyle(document.body).backgroundColor'), 'rgb(255, 255, 255)', 'dark background');
    await p.screenshot({ path: `${SCREENSHOTS}explorer-phone-dark.png`, fullPage: true });
    t.same(phoneErrors, []);
  });

  await t.test('text contrast meets WCAG AA in light and dark mode', async (t) => {
    const views: Array<[string, string]> = [
      ['', 'home'],
      [`#/tx/${failedHash}`, 'transaction'],
      [`#/did/${subjectDid}`, 'did'],
      [`#/credential/${credentialId}`, 'credential'],
      ['#/validators', 'validators'],
      ['#/charts/24h', 'charts'],
      ['#/no/such/page', 'not found'],
    ];
    for (const scheme of ['light', 'dark'] as const) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: scheme });
      const p = await ctx.newPage();
      for (const [hash, kind] of views) {
        await p.goto(`${explorer}/${hash}`);
        await p.waitForSelector(`main[data-page="${kind}"]:not([aria-busy])`, { timeout: 10_000 });
        t.same(await contrastProblems(p), [], `${scheme}: ${hash || '/'}`);
      }
      await ctx.close();
    }
  });

  t.same(a11y, [], 'every page: one h1, a main landmark, labelled controls, a live region');
  t.same(errors, [], 'no console error, no CSP violation');
});
