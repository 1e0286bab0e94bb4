import { BBS_PUBLIC_KEY_BYTES, bbsDeriveProof, verifyBbsProof } from '../../../node/crypto/bbs.js';
import { fromHex, toHex, utf8 } from '../../../node/protocol/bytes.js';
import type { Credential } from '../../../node/protocol/credential-document.js';
import { KYC_BBS_FIELDS, KYC_BBS_HEADER, KYC_BBS_MESSAGE_COUNT, readKycBbsMessage } from '../../../node/protocol/kyc-bbs.js';
import { quote } from './upstream.js';

/**
 * The BBS form of a KYC credential (issue 27): the KYC plugin's OpenID4VCI answer carries it
 * beside the W3C credential, as a top-level `bbs` member. The holder's device derives selective-
 * disclosure proofs from it (the client's `presentForVerification`), so the wallet keeps it with
 * the credential and serves it to that holder only: its messages hold the date of birth.
 *
 * It is kept only when it is the credential's own: the KYC layout and header, the same id, issuer
 * and subject as the W3C credential, the BBS key and message count the chain registered with the
 * credential, and a signature a proof can be derived from that verifies under that key (the check
 * a committee makes, with nothing disclosed). Anything else is dropped with the reason: the W3C
 * credential stays usable on its own.
 */

/** What the holder keeps; bytes are hex, messages their UTF-8 text (plugins/kyc/issuance/bbs.ts). */
export interface BbsForm {
  publicKey: string;
  header: string;
  /** `name=value`, in the KYC layout's order (node/protocol/kyc-bbs.ts) */
  messages: string[];
  signature: string;
  messageCount: number;
}

/** What the chain registered with the credential (ledger_credentialVerify's `bbs_public_key`, `bbs_message_count`). */
export interface RegisteredBbs {
  publicKey: string | undefined;
  messageCount: number | undefined;
}

const FORM_KEYS = ['publicKey', 'header', 'messages', 'signature', 'messageCount'];
const HEX = /^[0-9a-f]+$/;
/** no KYC message comes near this; it bounds what a broken issuer could make the wallet store */
const MAX_MESSAGE_CHARS = 1024;
/** binds the check's proof to nothing a verifier would accept */
const CHECK_HEADER = utf8('ledger-wallet-bbs-form-check');

/** The form, or why it is not the credential's own. */
export async function checkBbsForm(raw: unknown, vc: Credential, registered: RegisteredBbs): Promise<{ form: BbsForm } | { problem: string }> {
  const shape = formShape(raw);
  if (typeof shape === 'string') return { problem: shape };
  const form = shape;
  if (form.header !== toHex(KYC_BBS_HEADER)) return { problem: "the header is not the KYC layout's" };
  if (form.messageCount !== KYC_BBS_MESSAGE_COUNT || form.messages.length !== KYC_BBS_MESSAGE_COUNT) return { problem: `a KYC BBS form has ${KYC_BBS_MESSAGE_COUNT} messages, not ${form.messages.length}` };
  const values: Record<string, string> = {};
  try {
    form.messages.forEach((m, i) => {
      const { field, value } = readKycBbsMessage(i, utf8(m));
      values[field] = value;
    });
  } catch (err) {
    return { problem: (err as Error).message };
  }
  for (const [field, expected] of [['id', vc.id], ['issuer', vc.issuer.id], ['subject', vc.credentialSubject.id]] as const) {
    if (values[field] !== expected) return { problem: `its ${field} is ${quote(values[field] ?? '')}, the credential's is ${expected}` };
  }
  if (registered.publicKey === undefined) return { problem: 'the chain registered no BBS key with this credential' };
  if (registered.publicKey !== form.publicKey || registered.messageCount !== form.messageCount) return { problem: 'its key or message count is not the one the chain registered with the credential' };
  if (!(await signatureHolds(form))) return { problem: 'its signature does not verify under the registered key' };
  return { form };
}

function formShape(raw: unknown): BbsForm | string {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return 'it is not a JSON object';
  const o = raw as Record<string, unknown>;
  const extra = Object.keys(o).find((k) => !FORM_KEYS.includes(k));
  if (extra !== undefined) return `unknown member ${quote(extra)}`;
  if (typeof o['publicKey'] !== 'string' || o['publicKey'].length !== BBS_PUBLIC_KEY_BYTES * 2 || !HEX.test(o['publicKey'])) return `publicKey must be ${BBS_PUBLIC_KEY_BYTES} bytes of lowercase hex`;
  for (const k of ['header', 'signature']) {
    const v = o[k];
    if (typeof v !== 'string' || v.length === 0 || v.length > 512 || v.length % 2 !== 0 || !HEX.test(v)) return `${k} must be lowercase hex`;
  }
  const messages = o['messages'];
  if (!Array.isArray(messages) || messages.length > KYC_BBS_FIELDS.length || !messages.every((m) => typeof m === 'string' && m.length <= MAX_MESSAGE_CHARS)) return 'messages must be a list of strings';
  if (!Number.isSafeInteger(o['messageCount'])) return 'messageCount must be an integer';
  return { publicKey: o['publicKey'], header: o['header'] as string, messages: messages as string[], signature: o['signature'] as string, messageCount: o['messageCount'] as number };
}

/** A proof derived from the signature verifies: the signature is over these messages, under this key. */
async function signatureHolds(form: BbsForm): Promise<boolean> {
  const publicKey = fromHex(form.publicKey, BBS_PUBLIC_KEY_BYTES, 'publicKey');
  try {
    const proof = await bbsDeriveProof({ publicKey, signature: fromHex(form.signature), header: KYC_BBS_HEADER, messages: form.messages.map(utf8), presentationHeader: CHECK_HEADER, disclosedIndexes: [] });
    return await verifyBbsProof({ proof, publicKey, header: KYC_BBS_HEADER, presentationHeader: CHECK_HEADER, disclosed: [], totalMessageCount: form.messageCount });
  } catch {
    return false;
  }
}
