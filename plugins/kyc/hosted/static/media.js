// The page's media and transport: the camera, JPEG encoding, photo files, and the hosted JSON
// routes (JSON reads, multipart uploads with progress, RFC 7807 errors as their status and code).
// Errors raised here for the camera and files carry a catalogue key; the server's carry its code.

export const MAX_BYTES = 10 * 1024 * 1024;
let stream = null;

/** A failure the page words for people itself (the camera, a photo file): its catalogue key. */
export class UserError extends Error {
  constructor(key, params = {}, { camera = false } = {}) {
    super(key);
    this.key = key;
    this.params = params;
    /** the camera cannot be used here: the page offers the phone or files instead */
    this.camera = camera;
  }
}

const cameraError = (key) => new UserError(key, {}, { camera: true });

/** Whether the browser lists a camera (before any permission it still lists one of each kind). */
export async function hasCamera() {
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia || !navigator.mediaDevices.enumerateDevices) return false;
  try {
    return (await navigator.mediaDevices.enumerateDevices()).some((d) => d.kind === 'videoinput');
  } catch {
    return false;
  }
}

/** A refused request: its status (0 when there was no answer) and the Problem's `code`, if any. */
export class ApiError extends Error {
  constructor(status, body) {
    super(`HTTP ${status}`);
    this.status = status;
    this.code = body && typeof body.code === 'string' ? body.code : undefined;
  }
}

export async function getJson(url) {
  let res;
  try {
    res = await fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store', credentials: 'omit' });
  } catch {
    throw new ApiError(0, null);
  }
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, body);
  return body;
}

/** A multipart POST with upload progress on `bar` (fetch reports none). */
export function upload(url, form, bar) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.setRequestHeader('accept', 'application/json');
    bar.value = 0;
    bar.hidden = false;
    xhr.upload.onprogress = (e) => e.lengthComputable && (bar.value = Math.round((e.loaded * 100) / e.total));
    xhr.onload = () => {
      bar.hidden = true;
      let body = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {}
      if (xhr.status >= 200 && xhr.status < 300) resolve(body);
      else reject(new ApiError(xhr.status, body));
    };
    xhr.onerror = () => {
      bar.hidden = true;
      reject(new ApiError(0, null));
    };
    xhr.send(form);
  });
}

export async function startCamera(video, facingMode) {
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) throw cameraError('media.noCameraApi');
  stopCamera();
  try {
    stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: { ideal: facingMode }, width: { ideal: 1920 }, height: { ideal: 1080 } }, audio: false });
  } catch (err) {
    const name = err && err.name;
    if (name === 'NotAllowedError') throw cameraError('media.cameraRefused');
    if (name === 'NotFoundError' || name === 'OverconstrainedError') throw cameraError('media.noCamera');
    throw cameraError('media.cameraFailed');
  }
  video.srcObject = stream;
  video.hidden = false;
  if (video.readyState < 1) await new Promise((resolve) => video.addEventListener('loadedmetadata', resolve, { once: true }));
  await video.play();
}

export function stopCamera() {
  if (stream) for (const track of stream.getTracks()) track.stop();
  stream = null;
  for (const v of document.querySelectorAll('video')) {
    v.srcObject = null;
    v.hidden = true;
  }
}

/** Draws the source on a canvas, at most `maxSide` pixels on its long side, and encodes a JPEG. */
function toJpeg(source, width, height, maxSide, quality) {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  canvas.getContext('2d').drawImage(source, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new UserError('media.shotFailed'))), 'image/jpeg', quality));
}

export const snapshot = (video, maxSide = 1920) => toJpeg(video, video.videoWidth, video.videoHeight, maxSide, 0.92);

/** JPEG and PNG files under the limit go as they are; other images the browser reads are re-encoded. */
export async function fromFile(file) {
  if ((file.type === 'image/jpeg' || file.type === 'image/png') && file.size <= MAX_BYTES) return file;
  const blob = await reencode(file, 2400);
  if (blob.size > MAX_BYTES) throw new UserError('error.tooLarge');
  return blob;
}

async function reencode(file, maxSide) {
  const bitmap = await createImageBitmap(file).catch(() => {
    throw new UserError('media.notImage');
  });
  return toJpeg(bitmap, bitmap.width, bitmap.height, maxSide, 0.9);
}

/**
 * Selfie files in place of the camera's liveness frames: each re-encoded as a JPEG of at most
 * 640 pixels a side, as the camera's frames are, so that all of them fit in one upload.
 */
export async function framesFromFiles(files, max) {
  if (files.length > max) throw new UserError('media.tooManyPhotos', { max });
  if (files.length < 2) throw new UserError('media.tooFewPhotos');
  const frames = [];
  for (const file of files) frames.push(await reencode(file, 640));
  return frames;
}

export const cameraOn = () => stream !== null;
