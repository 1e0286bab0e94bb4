import { BBS_SCALAR_BYTES } from '../../../node/crypto/sizes.js';
import { serviceKeyRow } from '../../common/chain/service-key.js';
import type { SecretRow } from '../../common/secrets/sealed-rows.js';

/** The issuer's tables of its service key and of the transactions it signed (plugins/common/chain). */
export const ISSUER_KEY_TABLE = 'iss-keys';
export const ISSUER_TX_TABLE = 'iss-txs';
export const ISSUER_SIGNER = 'the KYC issuer';

/** the issuer's Ed25519 seed, sealed (plugins/common/secrets) */
export const ISSUER_SEED_ROW: SecretRow = serviceKeyRow(ISSUER_KEY_TABLE, "the KYC issuer's Ed25519 seed");
/** its BBS secret key, next to it; the row also holds the public key in the clear */
export const ISSUER_BBS_ROW: SecretRow = { table: ISSUER_KEY_TABLE, row: 'bbs', purpose: 'bbs-secret-key', bytes: BBS_SCALAR_BYTES, plaintextField: 'secretKey', what: "the KYC issuer's BBS secret key" };
/** every secret the issuer keeps, for `ledger service-keys rotate` */
export const ISSUER_SECRET_ROWS: readonly SecretRow[] = [ISSUER_SEED_ROW, ISSUER_BBS_ROW];
