import { BBS_PUBLIC_KEY_BYTES, bbsKeyPair, bbsSign, type BbsKeyPair } from '../../../node/crypto/bbs.js';
import { invalid } from '../../../node/errors.js';
import { fromHex, toHex } from '../../../node/protocol/bytes.js';
import type { CredentialBody } from '../../../node/protocol/credential-document.js';
import { KYC_BBS_HEADER, KYC_BBS_MESSAGE_COUNT, kycBbsMessages, type KycBbsForm } from '../../../node/protocol/kyc-bbs.js';

export type { KycBbsForm } from '../../../node/protocol/kyc-bbs.js';
import { keepSecret, type SecretRow, type SecretSource } from '../../common/secrets/sealed-rows.js';
import type { PluginDb } from '../../common/store/tables.js';

/**
 * The BBS form of a KYCCredential (issue 27, selective disclosure): the same credential signed a
 * second time, by the issuer's BBS key, over one message per attribute in the layout of
 * node/protocol/kyc-bbs.ts. The credential request registers the key and the message count on
 * chain; the form itself, with the date of birth in it, goes only to the holder.
 */

/**
 * The issuer's BBS key pair: made on first start and stored (the secret key sealed like the
 * Ed25519 seed, plugins/common/secrets), then always the stored one, since every credential
 * request registered so far names its public key.
 */
export async function loadBbsKey(db: PluginDb, row: SecretRow, source: SecretSource, now: () => number = Date.now): Promise<BbsKeyPair> {
  const kept = await keepSecret(db, row, source, async () => {
    const pair = await bbsKeyPair();
    return { secret: pair.secretKey, fields: { publicKey: toHex(pair.publicKey), createdAt: new Date(now()).toISOString() } };
  });
  return { secretKey: kept.secret, publicKey: fromHex(kept.row.publicKey as string, BBS_PUBLIC_KEY_BYTES, 'the stored BBS public key') };
}

/**
 * Signs the BBS messages of a KYCCredential body: the same id, parties, dates, level, jurisdiction
 * and attributes as the W3C credential, plus the date of birth (YYYY-MM-DD or null).
 */
export async function kycBbsForm(key: BbsKeyPair, body: CredentialBody, birthDate: string | null): Promise<KycBbsForm> {
  const s = body.credentialSubject;
  if (s.kycLevel === undefined) throw invalid('BAD_CREDENTIAL', `${body.id} is not a KYCCredential: it has no kycLevel`);
  const messages = kycBbsMessages({
    id: body.id,
    issuer: body.issuer.id,
    subject: s.id,
    issuanceDate: body.issuanceDate,
    expirationDate: body.expirationDate,
    kycLevel: s.kycLevel,
    jurisdiction: s.jurisdiction,
    birthDate,
    verifiedAttributes: s.verifiedAttributes,
  });
  const signature = await bbsSign({ secretKey: key.secretKey, publicKey: key.publicKey, header: KYC_BBS_HEADER, messages });
  const text = new TextDecoder();
  return { publicKey: toHex(key.publicKey), header: toHex(KYC_BBS_HEADER), messages: messages.map((m) => text.decode(m)), signature: toHex(signature), messageCount: KYC_BBS_MESSAGE_COUNT };
}
