// The hosted verification flow. The session token is the last path segment; every call goes to the
// hosted JSON routes of this origin. The server says which steps the session has and which one is
// current; the page asks for consent, then walks the steps (steps.js), or hands the session to a
// phone when this device has no camera, then polls for the result.

import { ApiError, UserError, getJson, hasCamera, stopCamera } from './media.js';
import { errorSentence, reasonSentence } from './messages.js';
import { LANG, fillPage, hasString, t } from './i18n.js';
import { applyColor, isLogo } from './brand.js';
import { setupSteps } from './steps.js';

const TOKEN = (/^\/v\/s\/([A-Za-z0-9_-]{1,256})\/?$/.exec(location.pathname) || [])[1];
const API = `/v1/verifications/s/${TOKEN}`;
const POLL_MS = 2000;
// a wallet QR needs time to be scanned before the page leaves
const REDIRECT_SECONDS = 5;
const REDIRECT_SECONDS_WITH_OFFER = 15;
const STEP_VIEWS = new Set(['document', 'liveness', 'address']);
const CAMERA_STEPS = new Set(['document', 'liveness']);
const TERMINAL = new Set(['completed', 'failed', 'expired']);
// consent is kept in this tab only (docs/kyc.md, "The hosted page"): the session record has no place for it
const CONSENT_KEY = `kyc-consent:${TOKEN}`;

const $ = (sel, root = document) => root.querySelector(sel);
const state = {
  view: 'view-loading',
  focusNext: false,
  done: new Set(),
  session: null,
  consent: readConsent(),
  cameraChecked: false,
  noCamera: false,
  handoff: false,
  handoffShown: false,
  branded: false,
  pollTimer: 0,
  redirectTimer: 0,
};

const say = (text) => ($('#progress').textContent = text);
// the server's text is for developers, and so is a browser's: people get the catalogue's sentence
// for a server code (messages.js), or the page's own for the camera and files
const human = (e) => (e instanceof ApiError ? errorSentence(e.status, e.code) : e instanceof UserError ? t(e.key, e.params) : errorSentence());
const orgName = (session) => (session && ((session.organization && session.organization.name) || session.organizationName)) || '';
const stepLabel = (step) => (hasString(`step.${step}`) ? t(`step.${step}`) : step);

function readConsent() {
  try {
    return sessionStorage.getItem(CONSENT_KEY) !== null;
  } catch {
    return false;
  }
}

function show(id) {
  if (state.view === id) return;
  state.view = id;
  for (const v of document.querySelectorAll('.view')) v.hidden = v.id !== id;
  // the result says it all: the live region still speaks, but is not shown twice
  $('#progress').classList.toggle('visually-hidden', id === 'view-result');
  // the first view after loading leaves the reader at the top; later ones move focus to their heading
  if (state.focusNext) $(`#${id} h2`).focus();
  state.focusNext = true;
}

// ---- consent

function showConsent(session) {
  const org = orgName(session) || t('org.fallback');
  $('#consent-intro').textContent = t('consent.intro', { org });
  $('#consent-who').textContent = t('consent.who', { org });
  const until = new Date(session.expiresAt);
  const time = Number.isNaN(until.getTime()) ? '' : new Intl.DateTimeFormat(LANG, { dateStyle: 'long', timeStyle: 'short' }).format(until);
  $('#consent-deadline').textContent = time ? t('consent.deadline', { time }) : '';
  // null: this service keeps the photos; otherwise they are deleted that many days after the decision
  const days = session.evidenceRetentionDays;
  const retention = typeof days !== 'number' ? 'consent.retentionKept' : days === 1 ? 'consent.retentionOneDay' : 'consent.retention';
  $('#consent-retention').textContent = t(retention, { org, days });
  for (const li of document.querySelectorAll('#view-consent [data-step]')) li.hidden = !session.steps.includes(li.dataset.step);
  show('view-consent');
}

function agree() {
  state.consent = true;
  try {
    sessionStorage.setItem(CONSENT_KEY, new Date().toISOString());
  } catch {}
  say(t('consent.agreed'));
  render(state.session);
}

/** Once consent is given (now or earlier in this tab): without a camera, the phone is offered first. */
async function checkCamera(session) {
  state.cameraChecked = true;
  const left = session.steps.filter((s) => !state.done.has(s));
  if (left.some((s) => CAMERA_STEPS.has(s)) && !(await hasCamera())) {
    state.noCamera = true;
    state.handoff = true;
  }
}

function decline() {
  const session = state.session;
  $('#declined-text').textContent = t('declined.text', { org: orgName(session) || t('org.fallback') });
  const back = safeUrl(session.redirectUrl, ['https:', 'http:']);
  const ret = $('#declined-return');
  ret.hidden = !back;
  if (back) {
    ret.textContent = t('declined.return', { host: back.host });
    ret.onclick = () => location.assign(back.href);
  }
  show('view-declined');
}

// ---- continue on a phone

function offerPhone() {
  stopCamera();
  state.handoff = true;
  render(state.session);
}

async function enterHandoff(session) {
  const done = session.completedSteps.map(stepLabel);
  $('#handoff-done').textContent = done.length ? t('handoff.phoneDone', { step: new Intl.ListFormat(LANG).format(done) }) : '';
  show('view-handoff');
  if (!state.handoffShown) {
    state.handoffShown = true;
    try {
      const { qr } = await getJson(`/v/s/${TOKEN}/handoff.json`);
      if (typeof qr !== 'string' || !qr.startsWith('data:image/png;base64,')) throw new Error('not a QR code');
      $('#handoff-qr').src = qr;
      $('#handoff-qr').hidden = false;
    } catch {
      $('#view-handoff .error').textContent = t('handoff.unavailable');
    }
  }
  poll();
}

function useFilesHere() {
  state.handoff = false;
  state.noCamera = true;
  render(state.session);
}

// ---- session, progress and result

/** The step to do now: the server's current one, past any this page has just finished. */
function nextStep(session) {
  if (session.status !== 'pending') return null;
  const steps = session.steps;
  let i = steps.indexOf(session.currentStep);
  if (i < 0) return null;
  while (i < steps.length && state.done.has(steps[i])) i++;
  return steps[i] ?? null;
}

function renderSteps(steps, current) {
  const at = current ? steps.indexOf(current) : steps.length;
  $('#steps').replaceChildren(
    ...steps.map((step, i) => {
      const li = document.createElement('li');
      const note = document.createElement('span');
      note.className = 'visually-hidden';
      note.textContent = i < at ? t('step.done') : i === at ? t('step.current') : '';
      if (i < at) li.className = 'done';
      if (i === at) li.setAttribute('aria-current', 'step');
      li.append(stepLabel(step), note);
      return li;
    }),
  );
}

function showOrganization(session) {
  const org = orgName(session);
  $('#org-name').textContent = org || t('page.title');
  document.title = org ? t('page.titleWithOrg', { org }) : t('page.title');
  if (state.branded) return;
  state.branded = true;
  const brand = session.organization || {};
  if (isLogo(brand.logo)) {
    $('#org-logo').src = brand.logo;
    $('#org-logo').alt = t('org.logoAlt', { org: org || t('org.fallback') });
    $('#org-logo').hidden = false;
  }
  if (brand.color) applyColor(brand.color);
}

function render(session) {
  state.session = session;
  if (!Array.isArray(session.steps)) session.steps = [];
  if (!Array.isArray(session.completedSteps)) session.completedSteps = [];
  for (const step of session.completedSteps) state.done.add(step);
  showOrganization(session);
  const step = nextStep(session);
  renderSteps(session.steps, step);
  if (TERMINAL.has(session.status)) return showResult(session);
  if (!STEP_VIEWS.has(step)) return enterChecking();
  if (!state.consent) return showConsent(session);
  if (!state.cameraChecked) return checkCamera(session).then(() => render(state.session));
  if (state.handoff) return enterHandoff(session);
  enterStep(step);
}

function enterStep(step) {
  if (state.view === `view-${step}`) return;
  stopCamera();
  steps.refreshDocument();
  show(`view-${step}`);
  if (step === 'liveness') steps.enterLiveness();
}

function poll() {
  clearTimeout(state.pollTimer);
  state.pollTimer = setTimeout(refreshSession, POLL_MS);
}

function enterChecking() {
  if (state.view !== 'view-checking') {
    stopCamera();
    show('view-checking');
    say(t('checking.heading'));
  }
  poll();
}

/** Reads the session again and shows what it says; a lost connection is retried. */
async function refreshSession() {
  try {
    render((await getJson(API)).session);
  } catch (e) {
    if (e.status === 404) return showInvalid();
    say(t('checking.retrying', { error: human(e) }));
    poll();
  }
}

function safeUrl(value, schemes) {
  try {
    const url = new URL(value);
    return schemes.includes(url.protocol) ? url : null;
  } catch {
    return null;
  }
}

async function showOffer(session) {
  const offer = { uri: session.credentialOfferUri, ...(await getJson(`/v/s/${TOKEN}/offer.json`).catch(() => ({}))) };
  const link = safeUrl(offer.uri, ['openid-credential-offer:', 'https:', 'http:']);
  if (!link) return;
  $('#offer-link').href = link.href;
  if (typeof offer.qr === 'string' && offer.qr.startsWith('data:image/png;base64,')) {
    $('#offer-qr').src = offer.qr;
    $('#offer-qr').hidden = false;
  }
  if (offer.txCode) {
    $('#offer-pin-value').textContent = offer.txCode;
    $('#offer-pin').hidden = false;
  }
  $('#offer').hidden = false;
}

function setResult(title, text, ok) {
  $('#result-h').textContent = title;
  $('#result-h').className = ok ? 'result-ok' : 'result-bad';
  $('#result-text').textContent = text;
  show('view-result');
  say(title);
}

async function showResult(session) {
  if (state.view === 'view-result') return;
  clearTimeout(state.pollTimer);
  stopCamera();
  const org = orgName(session) || t('org.fallback');
  const why = reasonSentence(session.reason, session.level);
  if (session.status === 'completed') setResult(t('result.completeTitle'), t('result.completeText', { org }), true);
  else if (session.status === 'failed') setResult(t('result.failedTitle'), t('result.failedText', { why, org }), false);
  else setResult(t('result.expiredTitle'), t('result.expiredText', { why: session.reason ? why : reasonSentence('session_ttl'), org }), false);
  if (session.status === 'completed' && session.credentialOfferUri) await showOffer(session);
  const back = safeUrl(session.redirectUrl, ['https:', 'http:']);
  if (back) offerRedirect(back, $('#offer').hidden ? REDIRECT_SECONDS : REDIRECT_SECONDS_WITH_OFFER);
}

/** Continue now, or automatically after `seconds`; "Stay on this page" stops the countdown. */
function offerRedirect(url, seconds) {
  const cont = $('#continue');
  const stay = $('#stay');
  const note = $('#redirect-note');
  const go = () => location.assign(url.href);
  const host = url.host;
  const tell = (left) => (note.textContent = t('redirect.countdown', { host, seconds: left }));
  cont.hidden = stay.hidden = note.hidden = false;
  cont.addEventListener('click', go);
  stay.addEventListener('click', () => {
    clearInterval(state.redirectTimer);
    note.textContent = t('redirect.stayed', { host });
    say(t('redirect.staying'));
    stay.hidden = true;
    cont.focus();
  });
  let left = seconds;
  tell(left);
  say(t('redirect.announce', { title: $('#result-h').textContent, host, seconds: left }));
  state.redirectTimer = setInterval(() => {
    tell(--left);
    if (left > 0) return;
    clearInterval(state.redirectTimer);
    go();
  }, 1000);
}

function showInvalid() {
  clearTimeout(state.pollTimer);
  stopCamera();
  $('#org-name').textContent = t('page.title');
  $('#steps').replaceChildren();
  setResult(t('result.invalidTitle'), t('result.invalidText'), false);
}

fillPage();
const steps = setupSteps({
  api: API,
  say,
  human,
  noCamera: () => state.noCamera,
  offerPhone,
  done: (step) => {
    state.done.add(step);
    return refreshSession();
  },
});
$('#consent-agree').addEventListener('click', agree);
$('#consent-decline').addEventListener('click', decline);
$('#declined-again').addEventListener('click', () => showConsent(state.session));
$('#handoff-files').addEventListener('click', useFilesHere);
if (TOKEN) refreshSession();
else showInvalid();
