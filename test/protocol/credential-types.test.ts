import t from 'tap';
import { formatTokens } from '../../node/protocol/amount.js';
import { CREDENTIAL_TYPES, isCredentialType, issuanceFee } from '../../node/protocol/credential-types.js';

t.test("seed 002's table of types and fees", async (t) => {
  const table: Array<[string, number | undefined, string]> = [
    ['EmailVerificationCredential', undefined, '0.01'],
    ['PhoneVerificationCredential', undefined, '0.02'],
    ['KYCCredential', 1, '1'],
    ['KYCCredential', 2, '5'],
    ['KYCCredential', 3, '20'],
    ['AgeVerificationCredential', undefined, '0.05'],
    ['ReputationCredential', undefined, '0.01'],
  ];
  for (const [type, level, fee] of table) {
    t.ok(isCredentialType(type));
    if (isCredentialType(type)) t.equal(formatTokens(issuanceFee(type, level)), fee, `${type}${level ? ` level ${level}` : ''}`);
  }
  t.equal(CREDENTIAL_TYPES.length, 5);
});

t.test('unknown types and bad levels are refused', async (t) => {
  t.notOk(isCredentialType('PassportCredential'));
  t.notOk(isCredentialType(7));
  t.throws(() => issuanceFee('KYCCredential'), { code: 'BAD_CREDENTIAL_TYPE' });
  t.throws(() => issuanceFee('KYCCredential', 4), { code: 'BAD_CREDENTIAL_TYPE' });
  t.throws(() => issuanceFee('EmailVerificationCredential', 1), { code: 'BAD_CREDENTIAL_TYPE' });
});
