// The three steps a session can have: the identity document (camera or file, one or two sides),
// the liveness check (camera frames, or selfie files when there is no camera) and the proof of
// address (a file). Each calls `flow.done(step)` when the server has it.

import { cameraOn, framesFromFiles, fromFile, getJson, snapshot, startCamera, stopCamera, upload } from './media.js';
import { t } from './i18n.js';

export const LIVENESS_FRAMES = 5;
/** the server takes at most this many frames (verification/sessions.ts MAX_FRAMES) */
const MAX_FRAMES = 10;
const FRAME_INTERVAL_MS = 400;
const TWO_SIDED = new Set(['driving_license', 'national_id', 'residence_permit']);

const $ = (sel, root = document) => root.querySelector(sel);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `flow`: {api, say(text), human(error), done(step), offerPhone(), noCamera()}: the page's
 * status line, its wording of errors, what follows a finished step, and the camera fallbacks.
 */
export function setupSteps(flow) {
  const doc = setupDocument(flow);
  const liveness = setupLiveness(flow);
  setupAddress(flow);
  return { refreshDocument: doc.refresh, enterLiveness: liveness.enter };
}

/** A camera failure shows its sentence and, as it says the camera cannot be used here, the way to the phone. */
function cameraFailed(flow, err, e, phoneButton) {
  err.textContent = flow.human(e);
  if (e && e.camera) phoneButton.hidden = false;
  return Boolean(e && e.camera);
}

/**
 * The parts shared by the document and address forms: the photo with its preview, the file
 * input, and the upload of `fields` plus the photo, with errors shown in the form's alert.
 */
function photoForm(flow, form, describe, onPhoto = () => {}) {
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
      flow.say(message);
      try {
        await upload(`${flow.api}/documents`, fd, $('progress', form));
      } catch (e) {
        flow.say('');
        err.textContent = flow.human(e);
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
      err.textContent = flow.human(e);
    }
  });
  return slot;
}

function setupDocument(flow) {
  const form = $('#doc-form');
  const video = $('video', form);
  const sides = new Set();
  const btn = (action) => $(`[data-action=${action}]`, form);
  const type = () => form.elements.type.value;
  const side = () => form.elements.side.value;
  const sideName = (s) => t(`doc.sideName.${s}`);
  const slot = photoForm(flow, form, () => t('doc.photoAlt', { side: sideName(side()) }), (blob) => {
    btn('retake').hidden = !blob || flow.noCamera();
    btn('shoot').hidden = Boolean(blob) || !cameraOn();
    btn('camera').hidden = Boolean(blob) || Boolean(cameraOn()) || flow.noCamera();
  });
  const refresh = () => {
    const twoSided = TWO_SIDED.has(type());
    $('input[name=side][value=back]', form).disabled = !twoSided;
    if (!twoSided && side() === 'back') form.elements.side.value = 'front';
    for (const mark of form.querySelectorAll('[data-side-done]')) mark.hidden = !sides.has(mark.dataset.sideDone);
    $('#doc-hint').textContent = `${t(twoSided ? 'doc.hintTwoSided' : 'doc.hintOneSided')} ${t('doc.hintSharp')}`;
    btn('camera').hidden = Boolean(slot.get()) || Boolean(cameraOn()) || flow.noCamera();
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
      cameraFailed(flow, slot.err, e, btn('phone'));
    }
  };
  for (const input of form.querySelectorAll('input[name=type]')) {
    input.addEventListener('change', () => {
      sides.clear();
      form.elements.side.value = 'front';
      refresh();
    });
  }
  for (const input of form.querySelectorAll('input[name=side]')) input.addEventListener('change', () => slot.get() && slot.set(slot.get()));
  btn('camera').addEventListener('click', camera);
  btn('retake').addEventListener('click', camera);
  btn('phone').addEventListener('click', () => flow.offerPhone());
  btn('shoot').addEventListener('click', async () => {
    try {
      const blob = await snapshot(video);
      stopCamera();
      slot.set(blob);
      flow.say(t('doc.photoTaken'));
      $('button[type=submit]', form).focus();
    } catch (e) {
      slot.err.textContent = flow.human(e);
    }
  });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!slot.get()) return;
    const needed = TWO_SIDED.has(type()) ? ['front', 'back'] : ['front'];
    const current = side();
    const final = needed.every((s) => s === current || sides.has(s));
    if (!(await slot.send({ type: type(), side: current, final: String(final) }, current, t('doc.uploading', { side: sideName(current) })))) return;
    sides.add(current);
    if (final) {
      flow.say(t('doc.uploaded'));
      return flow.done('document');
    }
    form.elements.side.value = needed.find((s) => !sides.has(s));
    refresh();
    flow.say(t('doc.sideUploaded', { side: sideName(current), next: sideName(side()) }));
    (flow.noCamera() ? $('input[type=file]', form) : btn('camera')).focus();
  });
  refresh();
  return { refresh };
}

function setupLiveness(flow) {
  const sec = $('#view-liveness');
  const err = $('.error', sec);
  const start = $('#live-start');
  const send = $('#live-send');
  const phone = $('#live-phone');
  const input = $('#live-file');
  const state = { challenge: null, frames: [] };

  // without a camera, the person chooses selfie files; the camera's button and preview go away
  const useFiles = (on) => {
    $('#live-files').hidden = !on;
    $('[data-capture=live]', sec).hidden = on;
    send.hidden = !on;
    start.hidden = on;
    instructions();
  };
  const instructions = () => {
    const c = state.challenge;
    if (!c) return;
    $('#live-instructions').textContent = $('#live-files').hidden
      ? t('live.withCamera', { instructions: c.instructions, count: LIVENESS_FRAMES, seconds: (LIVENESS_FRAMES * FRAME_INTERVAL_MS) / 1000 })
      : c.instructions;
    $('#live-files-hint').textContent = t('live.filesHint', { max: MAX_FRAMES });
  };
  const loadChallenge = async () => {
    try {
      const { challenge } = await getJson(`${flow.api}/liveness-challenge`);
      state.challenge = challenge;
      instructions();
    } catch (e) {
      err.textContent = flow.human(e);
    }
    start.disabled = false;
    send.disabled = state.frames.length === 0;
  };
  const submit = async (frames) => {
    const fd = new FormData();
    if (state.challenge) fd.append('challengeId', state.challenge.id);
    frames.forEach((f, i) => fd.append('frames', f, `frame-${i + 1}.jpg`));
    flow.say(t('live.sending'));
    await upload(`${flow.api}/liveness`, fd, $('progress', sec));
    flow.say(t('live.sent'));
    await flow.done('liveness');
  };
  const fail = async (e) => {
    stopCamera();
    flow.say('');
    if (cameraFailed(flow, err, e, phone)) useFiles(true);
    start.textContent = t('live.retry');
    await loadChallenge();
  };

  start.addEventListener('click', async () => {
    start.disabled = true;
    err.textContent = '';
    const frames = [];
    try {
      await startCamera($('video', sec), 'user');
      flow.say(t('live.ready'));
      await sleep(1000);
      for (let i = 1; i <= LIVENESS_FRAMES; i++) {
        frames.push(await snapshot($('video', sec), 640));
        flow.say(t('live.photo', { n: i, count: LIVENESS_FRAMES }));
        if (i < LIVENESS_FRAMES) await sleep(FRAME_INTERVAL_MS);
      }
      stopCamera();
      await submit(frames);
    } catch (e) {
      await fail(e);
    }
  });
  input.addEventListener('change', async () => {
    err.textContent = '';
    state.frames = [];
    send.disabled = true;
    $('#live-files-count').textContent = '';
    try {
      state.frames = await framesFromFiles([...(input.files || [])], MAX_FRAMES);
      $('#live-files-count').textContent = t('live.filesChosen', { count: state.frames.length });
      send.disabled = false;
    } catch (e) {
      err.textContent = flow.human(e);
    }
  });
  send.addEventListener('click', async () => {
    send.disabled = true;
    err.textContent = '';
    try {
      await submit(state.frames);
    } catch (e) {
      await fail(e);
    }
  });
  phone.addEventListener('click', () => flow.offerPhone());

  return {
    enter() {
      useFiles(flow.noCamera());
      return loadChallenge();
    },
  };
}

function setupAddress(flow) {
  const form = $('#addr-form');
  const slot = photoForm(flow, form, () => t('addr.photoAlt'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!slot.get() || !(await slot.send({ type: 'address_proof', side: 'front', final: 'true' }, 'address', t('addr.uploading')))) return;
    flow.say(t('addr.uploaded'));
    await flow.done('address');
  });
}
