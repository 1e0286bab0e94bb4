import t from 'tap';
import { ecvrfProve } from '../../node/crypto/ecvrf.js';
import { Mempool } from '../../node/mempool/index.js';
import { MIN_VALIDATOR_STAKE } from '../../node/protocol/params.js';
import { attestation, request } from '../execution/credential-helpers.js';
import { CHAIN, Chain, member, tx } from '../execution/chain-harness.js';

const validators = [member(11), member(12), member(13), member(14)];
const issuer = member(31);
const subject = member(32);

t.test("a committee member's VRF proof is checked at admission against the request's seed", async (t) => {
  const chain = await Chain.genesis(
    validators.map((who) => ({ who, stake: MIN_VALIDATOR_STAKE })),
    { funded: [issuer, subject, ...validators] },
  );
  await chain.block([issuer, subject].map((m) => tx(m, chain.nonce(m), { kind: 'DidCreate', service: [] })));
  const p = request(issuer, subject);
  await chain.block([tx(issuer, chain.nonce(issuer), p)]);
  const mempool = new Mempool({ chainId: CHAIN, network: 'testnet', state: chain.state });

  const good = await attestation(chain, validators[0]!, p.credentialId);
  t.match(await mempool.admit(good), { ready: true }, 'a proof over the seed is admitted');

  const wrongSeed = await attestation(chain, validators[1]!, p.credentialId, { seed: new Uint8Array(32).fill(7) });
  await t.rejects(mempool.admit(wrongSeed), { code: 'BAD_VRF_PROOF', data: { credentialId: String } }, 'a proof over another seed is refused');

  const unknown = request(issuer, subject);
  const early = tx(validators[2]!, chain.nonce(validators[2]!), {
    kind: 'CredentialAttest',
    credentialId: unknown.credentialId,
    vrfProof: ecvrfProve(validators[2]!.ed.seed, new Uint8Array(32)),
    signature: new Uint8Array(64),
  });
  t.match(await mempool.admit(early), { ready: true }, 'a request not committed is left to execution');
});
