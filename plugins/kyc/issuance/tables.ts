/** The issuer's tables of its service key and of the transactions it signed (plugins/common/chain). */
export const ISSUER_KEY_TABLE = 'iss-keys';
export const ISSUER_TX_TABLE = 'iss-txs';
export const ISSUER_SIGNER = 'the KYC issuer';
