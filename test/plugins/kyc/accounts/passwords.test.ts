import t from 'tap';
import { burnVerification, checkPassword, hashPassword, verifyPassword } from '../../../../plugins/kyc/accounts/passwords.js';

t.test('Argon2id hashes that verify only the right password', async (t) => {
  const h = await hashPassword('correct horse battery');
  t.match(h, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  t.not(await hashPassword('correct horse battery'), h, 'salted');
  t.equal(await verifyPassword(h, 'correct horse battery'), true);
  t.equal(await verifyPassword(h, 'correct horse batterY'), false);
  t.equal(await verifyPassword('not a hash', 'x'), false, 'a malformed hash is a wrong password');
  await burnVerification('anything');
});

t.test('password bounds', async (t) => {
  t.equal(checkPassword('12345678'), '12345678');
  t.throws(() => checkPassword('1234567'), { message: 'password must be at least 8 characters' });
  t.throws(() => checkPassword('x'.repeat(129)), { message: 'password must be at most 128 characters' });
  t.throws(() => checkPassword(12345678), { message: 'password must be a string' });
  t.throws(() => checkPassword(undefined), { message: 'password is required' });
});
