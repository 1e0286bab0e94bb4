import t from 'tap';
import { UNIT } from '../../node/protocol/amount.js';
import { FEES } from '../../node/protocol/fees.js';
import type { Payload } from '../../node/protocol/payloads.js';
import { alice, bob, json, pool, sign, state } from './harness.js';

/**
 * The validator payloads need no mempool code of their own: admission checks payload shapes through
 * the protocol codec (JSON, and the JSON round trip of a gossiped transaction). The BLS checks are
 * left to execution, so that admission never costs a pairing.
 */

const register: Payload = { kind: 'ValidatorRegister', blsPublicKey: new Uint8Array(48).fill(7), proofOfPossession: new Uint8Array(96).fill(9) };
const vote = (fill: number) => ({ height: 4, blockHash: new Uint8Array(32).fill(fill), signature: new Uint8Array(96).fill(fill) });
const evidence: Payload = { kind: 'SubmitEvidence', evidence: 'double-vote', epoch: 0, round: 9, validator: bob.address, first: vote(1), second: vote(2) };

t.test('ValidatorRegister and SubmitEvidence are admitted as JSON and from gossip, at their fees', async (t) => {
  const mp = pool(state([{ key: alice, balance: UNIT }]));
  await mp.admitJson(json(sign(alice, 0n, register)));
  await mp.admit(sign(alice, 1n, evidence));
  t.same(
    mp.pending(alice.address).map((e) => e.cost),
    [FEES.ValidatorRegister, FEES.SubmitEvidence],
  );
});

t.test('their shape rules apply on both paths', async (t) => {
  const mp = pool(state([{ key: alice, balance: UNIT }]));
  const same = { ...evidence, second: vote(1) } as Payload;
  await t.rejects(mp.admit(sign(alice, 0n, same)), { code: 'MALFORMED_PAYLOAD' });
  const good = JSON.parse(json(sign(alice, 0n, register))) as Record<string, unknown>;
  await t.rejects(mp.admitJson(JSON.stringify({ ...good, payload: { ValidatorRegister: { bls_public_key: 'zz', proof_of_possession: '' } } })), { code: 'MALFORMED_PAYLOAD' });
  t.equal(mp.size, 0);
});
