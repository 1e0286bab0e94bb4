import t from 'tap';
import { HttpProblem } from '../../../../plugins/common/http/problems.js';
import { isSecretField, refuseSecretParams, refuseSecrets } from '../../../../plugins/wallet/http/secrets.js';

const refused = (fn: () => void): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof HttpProblem ? `${err.slug}:${err.extra.field ?? ''}` : String(err);
  }
};

t.test('refuseSecrets finds a secret field at any depth, in any case, and extended private keys anywhere', async (t) => {
  for (const name of ['seed', 'mnemonic', 'privateKey', 'private_key', 'secretKey', 'secret_key', 'seedPhrase', 'xprv', 'SEED', 'Private-Key', 'seed_phrase', 'MnEmOnIc']) {
    t.ok(isSecretField(name), name);
    t.equal(refused(() => refuseSecrets({ a: [1, { b: { [name]: 'x' } }] })), `validation:${name}`, `${name} nested`);
  }
  for (const name of ['seeds', 'publicKey', 'signature', 'did', 'secret', 'key']) t.notOk(isSecretField(name), `${name} is fine`);
  t.equal(refused(() => refuseSecrets({ publicKey: 'ab', signature: 'cd', list: [[['fine']]] })), undefined);
  t.equal(refused(() => refuseSecrets(['x', { deep: [`tprv${'A'.repeat(108)}`] }])), 'validation:', 'a tprv value under any name');
  t.equal(refused(() => refuseSecrets(null)), undefined);
  t.equal(refused(() => refuseSecrets('xprv')), undefined, 'the word alone is not a key');
  t.equal(refused(() => refuseSecretParams(new URLSearchParams('did=x&Mnemonic=y'))), 'validation:Mnemonic');
  t.equal(refused(() => refuseSecretParams(new URLSearchParams('did=x'))), undefined);
  let caught: unknown;
  try {
    refuseSecrets({ seed: 'abandon ability' });
  } catch (err) {
    caught = err;
  }
  t.ok(caught instanceof HttpProblem, 'it throws a Problem');
  t.match((caught as HttpProblem).detail, /^this service never accepts private keys: the request carries the field "seed"/);
  t.notMatch((caught as HttpProblem).detail, /abandon/, 'the value is not repeated');
});
