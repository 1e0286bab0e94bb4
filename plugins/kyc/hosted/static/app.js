// The hosted verification flow. The session token is the last path segment; every call goes to the
// hosted JSON routes of this origin. The server says which steps the session has and which one is
// current; the page walks them (document, liveness, address proof), then polls for the result.

import { ApiError, UserError, cameraOn, fromFile, getJson, snapshot, startCamera, stopCamera, upload } from './media.js';
import { errorSentence, reasonSentence } from './messages.js';

const TOKEN = (/^\/v\/s\/([A-Za-z0-9_-]{1,256})\/?$/.exec(location.pathname) || [])[1];
const API = `/v1/verifications/s/${TOKEN}`;
const LIVENESS_FRAMES = 5;
const FRAME_INTERVAL_MS = 400;
const POLL_MS = 2000;
// a wallet QR needs time to be scanned before the page leaves
const REDIRECT_SECONDS = 5;
const REDIRECT_SECONDS_WITH_OFFER = 15;
const STEP_LABELS = { document: 'Identity document', liveness: 'Liveness check', address: 'Proof of address' };
const STEP_VIEWS = new Set(['document', 'liveness', 'address']);
const TWO_SIDED = new Set(['driving_license', 'national_id', 'residence_permit']);
const TERMINAL = new Set(['completed', 'failed', 'expired']);

const $ = (sel, root = document) => root.querySelector(sel);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const state = { view: 'view-loading', focusNext: false, done: new Set(), sides: new Set(), challengeId: null, pollTimer: 0, redirectTimer: 0 };

const say = (text) => ($('#progress').textContent = text);
// the server's text is for developers, and so is a browser's: people get the sentence for a
// server code (messages.js), or the page's own words for the camera and files
const human = (e) => (e instanceof ApiError ? errorSentence(e.status, e.code) : e instanceof UserError ? e.message : errorSentence());

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

/**
 * The parts shared by the document and address forms: the photo with its preview, the file
 * input, and the upload of `fields` plus the photo, with errors shown in the form's alert.
 */
function photoForm(form, describe, onPhoto = () => {}) {
  const img = $('.preview-img', form);
  const submit = $('button[type=submit]', form);
  const err = $('.error', form);
  const input = $('input[type=file]', form);
  let photo = null;
  const slot = {
    get: () => photo,
    err,
    set(blob) {
      photo = blob;
      if (img.src) URL.revokeObjectURL(img.src);
      if (blob) img.src = URL.createObjectURL(blob);
      else img.removeAttribute('src');
      img.alt = blob ? describe() : '';
      img.hidden = !blob;
      submit.disabled = !blob;
      onPhoto(blob);
    },
    async send(fields, name, message) {
      const fd = new FormData();
      for (const [k, v] of Object.entries(fields)) fd.append(k, v);
      fd.append('file', photo, `${name}.${photo.type === 'image/png' ? 'png' : 'jpg'}`);
      err.textContent = '';
      submit.disabled = true;
      say(message);
      try {
        await upload(`${API}/documents`, fd, $('progress', form));
      } catch (e) {
        say('');
        err.textContent = human(e);
        submit.disabled = false;
        return false;
      }
      slot.set(null);
      input.value = '';
      return true;
    },
  };
  input.addEventListener('change', async () => {
    const file = input.files && input.files[0];
    if (!file) return;
    err.textContent = '';
    stopCamera();
    try {
      slot.set(await fromFile(file));
    } catch (e) {
      slot.set(null);
      err.textContent = human(e);
    }
  });
  return slot;
}

// ---- steps

function setupDocument() {
  const form = $('#doc-form');
  const video = $('video', form);
  const btn = (action) => $(`[data-action=${action}]`, form);
  const type = () => form.elements.type.value;
  const side = () => form.elements.side.value;
  const slot = photoForm(form, () => `Your photo of the ${side()} of the document`, (blob) => {
    btn('retake').hidden = !blob;
    btn('shoot').hidden = Boolean(blob) || !cameraOn();
    btn('camera').hidden = Boolean(blob) || Boolean(cameraOn());
  });
  const refresh = () => {
    const twoSided = TWO_SIDED.has(type());
    $('input[name=side][value=back]', form).disabled = !twoSided;
    if (!twoSided && side() === 'back') form.elements.side.value = 'front';
    for (const mark of form.querySelectorAll('[data-side-done]')) mark.hidden = !state.sides.has(mark.dataset.sideDone);
    $('#doc-hint').textContent = `${twoSided ? 'Photograph the front, then the back.' : 'Photograph the page with your photo.'} Make sure every corner is visible and the text is sharp.`;
  };
  const camera = async () => {
    slot.err.textContent = '';
    slot.set(null);
    try {
      await startCamera(video, 'environment');
      btn('camera').hidden = true;
      btn('shoot').hidden = false;
      btn('shoot').focus();
    } catch (e) {
      slot.err.textContent = human(e);
    }
  };
  for (const input of form.querySelectorAll('input[name=type]')) {
    input.addEventListener('change', () => {
      state.sides.clear();
      form.elements.side.value = 'front';
      refresh();
    });
  }
  for (const input of form.querySelectorAll('input[name=side]')) input.addEventListener('change', () => slot.get() && slot.set(slot.get()));
  btn('camera').addEventListener('click', camera);
  btn('retake').addEventListener('click', camera);
  btn('shoot').addEventListener('click', async () => {
    try {
      const blob = await snapshot(video);
      stopCamera();
      slot.set(blob);
      say('Photo taken. Check it, then upload it.');
      $('button[type=submit]', form).focus();
    } catch (e) {
      slot.err.textContent = human(e);
    }
  });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!slot.get()) return;
    const needed = TWO_SIDED.has(type()) ? ['front', 'back'] : ['front'];
    const current = side();
    const final = needed.every((s) => s === current || state.sides.has(s));
    if (!(await slot.send({ type: type(), side: current, final: String(final) }, current, `Uploading the ${current} of your document…`))) return;
    state.sides.add(current);
    if (final) {
      state.done.add('document');
      say('Your document was uploaded.');
      return advance();
    }
    form.elements.side.value = needed.find((s) => !state.sides.has(s));
    refresh();
    say(`The ${current} was uploaded. Now photograph the ${side()}.`);
    btn('camera').focus();
  });
  refresh();
}

async function loadChallenge() {
  try {
    const { challenge } = await getJson(`${API}/liveness-challenge`);
    state.challengeId = challenge.id;
    $('#live-instructions').textContent = `${challenge.instructions} Press the button when you are ready: we take ${LIVENESS_FRAMES} photos over ${(LIVENESS_FRAMES * FRAME_INTERVAL_MS) / 1000} seconds.`;
  } catch (e) {
    $('#view-liveness .error').textContent = human(e);
  }
  $('#live-start').disabled = false;
}

function setupLiveness() {
  const sec = $('#view-liveness');
  const err = $('.error', sec);
  const start = $('#live-start');
  const fail = async (message) => {
    stopCamera();
    say('');
    err.textContent = message;
    start.textContent = 'Try again';
    await loadChallenge();
  };
  start.addEventListener('click', async () => {
    start.disabled = true;
    err.textContent = '';
    const fd = new FormData();
    if (state.challengeId) fd.append('challengeId', state.challengeId);
    try {
      await startCamera($('video', sec), 'user');
      say('Get ready…');
      await sleep(1000);
      for (let i = 1; i <= LIVENESS_FRAMES; i++) {
        fd.append('frames', await snapshot($('video', sec), 640), `frame-${i}.jpg`);
        say(`Photo ${i} of ${LIVENESS_FRAMES}`);
        if (i < LIVENESS_FRAMES) await sleep(FRAME_INTERVAL_MS);
      }
      stopCamera();
      say('Sending the photos…');
      await upload(`${API}/liveness`, fd, document.createElement('progress'));
    } catch (e) {
      return fail(human(e));
    }
    state.done.add('liveness');
    say('The liveness check was sent.');
    await advance();
  });
}

function setupAddress() {
  const form = $('#addr-form');
  const slot = photoForm(form, () => 'Your proof of address');
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!slot.get() || !(await slot.send({ type: 'address_proof', side: 'front', final: 'true' }, 'address', 'Uploading your proof of address…'))) return;
    state.done.add('address');
    say('Your proof of address was uploaded.');
    await advance();
  });
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
      note.textContent = i < at ? ' (done)' : i === at ? ' (current step)' : '';
      if (i < at) li.className = 'done';
      if (i === at) li.setAttribute('aria-current', 'step');
      li.append(STEP_LABELS[step] || step, note);
      return li;
    }),
  );
}

function render(session) {
  if (!Array.isArray(session.steps)) session.steps = [];
  for (const step of Array.isArray(session.completedSteps) ? session.completedSteps : []) state.done.add(step);
  const org = session.organizationName || 'Identity verification';
  $('#org-name').textContent = org;
  document.title = `Identity verification · ${org}`;
  const step = nextStep(session);
  renderSteps(session.steps, step);
  if (TERMINAL.has(session.status)) return showResult(session);
  if (STEP_VIEWS.has(step)) return enterStep(step);
  enterChecking();
}

function enterStep(step) {
  if (state.view === `view-${step}`) return;
  stopCamera();
  show(`view-${step}`);
  if (step === 'liveness') loadChallenge();
}

function enterChecking() {
  if (state.view !== 'view-checking') {
    stopCamera();
    show('view-checking');
    say('We are checking your documents…');
  }
  clearTimeout(state.pollTimer);
  state.pollTimer = setTimeout(refreshSession, POLL_MS);
}

/** Reads the session again and shows what it says; a lost connection is retried. */
async function refreshSession() {
  try {
    render((await getJson(API)).session);
  } catch (e) {
    if (e.status === 404) return showInvalid();
    say(`${human(e)} Trying again…`);
    clearTimeout(state.pollTimer);
    state.pollTimer = setTimeout(refreshSession, POLL_MS);
  }
}

const advance = refreshSession;

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
  clearTimeout(state.pollTimer);
  stopCamera();
  const org = session.organizationName || 'the organization';
  const why = reasonSentence(session.reason, session.level);
  if (session.status === 'completed') setResult('Verification complete', `Thank you. ${org} has received the result.`, true);
  else if (session.status === 'failed') setResult('We could not verify your identity', `${why} ${org} has received the result and may contact you about what to do next.`, false);
  else setResult('This verification has expired', `${session.reason ? why : reasonSentence('session_ttl')} Ask ${org} for a new link.`, false);
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
  const tell = (left) => (note.textContent = `Returning to ${url.host} in ${left} seconds.`);
  cont.hidden = stay.hidden = note.hidden = false;
  cont.addEventListener('click', go);
  stay.addEventListener('click', () => {
    clearInterval(state.redirectTimer);
    note.textContent = `You can return to ${url.host} with Continue.`;
    say('You stay on this page.');
    stay.hidden = true;
    cont.focus();
  });
  let left = seconds;
  tell(left);
  say(`${$('#result-h').textContent}. You will return to ${url.host} in ${left} seconds.`);
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
  $('#org-name').textContent = 'Identity verification';
  $('#steps').replaceChildren();
  setResult('This link is not valid', 'The verification link is unknown or has expired. Ask the organization that sent it to you for a new one.', false);
}

setupDocument();
setupLiveness();
setupAddress();
if (TOKEN) refreshSession();
else showInvalid();
