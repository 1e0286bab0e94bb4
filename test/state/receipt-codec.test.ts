import t from 'tap';
import type { Receipt } from '../../node/protocol/receipt.js';
import { decodeReceipt, encodeReceipt } from '../../node/state/receipt-codec.js';

const U128_MAX = (1n << 128n) - 1n;

const receipt: Receipt = {
  tx_hash: 'aa'.repeat(32),
  status: 'failed: insufficient balance ✓',
  block_height: 2 ** 40,
  fee_paid: U128_MAX,
  events: [
    { type: 'Transfer', from: 'from', to: 'to', amount: 2n ** 100n + 1n },
    { type: 'Stake', address: 'addr', amount: 1n },
    { type: 'Unstake', address: 'addr', amount: 0n, release_ms: 1_700_000_000_000 },
    { type: 'UnbondingReleased', address: 'addr', amount: 9007199254740993n },
    { type: 'DidCreated', did: 'did:ledger:testnet:x' },
    { type: 'DidDeactivated', did: 'did:ledger:testnet:y' },
    { type: 'ValidatorRegistered', address: 'addr' },
    { type: 'ValidatorSlashed', address: 'addr', round: 2 ** 50 },
    { type: 'CredentialRequested', id: 'urn:ledger:credential:x', issuer: 'did:i', subject: 'did:s', deadline_height: 2 ** 40 },
    { type: 'CredentialAttested', id: 'urn:ledger:credential:x', validator: 'addr', attestations: 14 },
    { type: 'CredentialRegistered', id: 'urn:ledger:credential:x', consensus_round: 2 ** 45 },
    { type: 'CredentialRevoked', id: 'urn:ledger:credential:x', status_list: 2 ** 32 - 1, status_index: 131_071 },
    { type: 'ValidatorQualified', address: 'addr', credential: 'urn:ledger:credential:x' },
    { type: 'VerificationRequested', request_id: 'req-1', requester: 'did:r', subject: 'did:s', deadline_height: 2 ** 40 },
    { type: 'VerificationAnswered', request_id: 'req-1', validator: 'addr', answers: 3 },
    { type: 'VerificationFinalized', request_id: 'req-1', verified: true, consensus_round: 2 ** 45 },
    { type: 'VerificationAnswerRefused', request_id: 'req-2', validator: 'addr', reason: 'verification request req-2 is already final' },
  ],
  block_hash: '0b'.repeat(32),
  block_seq: 7,
  tx_index: 3,
};

t.test('every field and event round-trips, bigints exactly', async (t) => {
  const back = decodeReceipt(encodeReceipt(receipt));
  t.same(back, receipt);
  t.equal(back.fee_paid, U128_MAX);
  t.equal((back.events[3] as { amount: bigint }).amount, 9007199254740993n);
  t.same(decodeReceipt(encodeReceipt({ ...receipt, events: [] })).events, []);
});

t.test('corrupt bytes are refused', async (t) => {
  const bytes = encodeReceipt(receipt);
  t.throws(() => decodeReceipt(bytes.subarray(0, bytes.length - 1)));
  t.throws(() => decodeReceipt(Uint8Array.from([...bytes, 0])), { code: 'TRAILING_BYTES' });
  const oneEvent = encodeReceipt({ ...receipt, events: [{ type: 'DidCreated', did: 'd' }] });
  const tagAt = oneEvent.length - 4; // u8 tag, then u16 length and 'd'
  const bad = Uint8Array.from(oneEvent);
  bad[tagAt] = 99;
  t.throws(() => decodeReceipt(bad), { code: 'CORRUPT_RECEIPT' });
  t.throws(() => encodeReceipt({ ...receipt, tx_hash: 'AA'.repeat(32) }), { code: 'BAD_HEX' });
  t.throws(() => encodeReceipt({ ...receipt, fee_paid: -1n }));
});

t.test('recovery events round-trip', async (t) => {
  const did = 'did:ledger:testnet:x';
  const events: Receipt['events'] = [
    { type: 'RecoveryPolicySet', did, guardians: ['did:ledger:testnet:g1', 'did:ledger:testnet:g2'], threshold: 2, delay_blocks: 1_000_000 },
    { type: 'RecoveryPolicySet', did, guardians: [], threshold: 1, delay_blocks: 0 },
    { type: 'RecoveryPolicyRemoved', did },
    { type: 'RecoveryCancelled', did },
    { type: 'RecoveryStarted', did, new_public_key: 'ab'.repeat(32), due_height: 2 ** 50 },
    { type: 'DidRecovered', did, new_public_key: 'cd'.repeat(32) },
    { type: 'AccountRecovered', did, from: 'E4ADWjgjm7q25MvG89xRhyqHyFD', to: '2WRXAwiHCW7rvEpkN1nPmFY5hiUC', balance: 2n ** 100n, staked: 0n, unbonding: 7n },
  ];
  t.same(decodeReceipt(encodeReceipt({ ...receipt, events })).events, events);
});
