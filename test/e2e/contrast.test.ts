import t from 'tap';
import { launchChromium } from './browser.js';
import { contrastProblems } from './contrast.js';

/** The contrast check itself, on colours whose WCAG ratios are known. */
// no browser is a failure here, as in the explorer's browser test: CI installs Chromium
t.test('the contrast check flags what fails AA and passes what meets it', async (t) => {
  const browser = await launchChromium(t);
  const page = await browser.newPage();
  await page.setContent(`<body style="background:#fff">
    <p id="low" style="color:#777">grey on white, 4.48:1</p>
    <p style="color:#767676">the lightest grey that passes, 4.54:1</p>
    <h1 style="color:#949494;font-size:32px">large text needs 3:1 only</h1>
    <div style="background:rgba(0,0,0,0.3)"><span style="color:#fff">white on a translucent layer over white</span></div>
    <div style="background:rgba(0,0,0,0.5)"><span style="color:#000">black on half black over white, 5.3:1</span></div>
    <p style="color:#fff;display:none">hidden text is not checked</p>
  </body>`);
  const problems = await contrastProblems(page);
  t.equal(problems.length, 2, problems.join('\n'));
  t.match(problems[0], /^p "grey on white, 4\.48:1": 4\.48:1 < 4\.5:1/);
  t.match(problems[1], /^span "white on a translucent layer[^"]*": 2\.\d\d:1 < 4\.5:1/);
});
