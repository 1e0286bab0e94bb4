import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { generateValidatorKey, generateAccountKey } from '../../node/config/keyfile.js';
import { UNIT } from '../../node/protocol/amount.js';
import { toHex } from '../../node/protocol/bytes.js';
import { genesisToJson, parseGenesis, parseGenesisTemplate } from '../../node/protocol/genesis.js';
import { MIN_VALIDATOR_STAKE } from '../../node/protocol/params.js';
import { buildGenesisBlock } from '../../node/chain/genesis-block.js';

const v1 = generateValidatorKey('testnet');
const v2 = generateValidatorKey('testnet');
const acct = generateAccountKey('testnet');

function validatorJson(k = v1, stake: unknown = (10_000n * UNIT).toString()) {
  return { address: k.address, ed25519_public_key: toHex(k.publicKey), bls_public_key: toHex(k.blsPublicKey), stake, reputation: 500 };
}

function base(): Record<string, any> {
  return {
    chain_id: 'ledger-testnet-1',
    network: 'testnet',
    genesis_time_ms: 1_700_000_000_000,
    native_token: { symbol: 'LGR', name: 'Ledger', decimals: 8 },
    accounts: [{ address: acct.address, balance: '100000000000000000000' }, { address: v1.address, balance: 5 }],
    validators: [validatorJson(v1), validatorJson(v2, 2_000_000_000_000)],
  };
}

t.test('a valid genesis parses into bigint amounts and byte keys', async (t) => {
  const g = parseGenesis(base());
  t.equal(g.chainId, 'ledger-testnet-1');
  t.equal(g.network, 'testnet');
  t.equal(g.accounts[0]!.balance, 100_000_000_000_000_000_000n, 'beyond 2^53 as a string');
  t.equal(g.accounts[1]!.balance, 5n);
  t.equal(g.validators[0]!.stake, MIN_VALIDATOR_STAKE, 'exactly the minimum is accepted');
  t.equal(g.validators[1]!.stake, 2_000_000_000_000n);
  t.same(g.validators[0]!.blsPublicKey, v1.blsPublicKey);
  t.same(g.validators[0]!.ed25519PublicKey, v1.publicKey);
});

t.test('a bigint from the lossless JSON parser is accepted as an amount', async (t) => {
  const json = base();
  json.accounts[0].balance = 100_000_000_000_000_000_000n;
  t.equal(parseGenesis(json).accounts[0]!.balance, 100_000_000_000_000_000_000n);
});

t.test('genesisToJson round-trips and feeds the genesis block builder', async (t) => {
  const g = parseGenesis(base());
  const json = genesisToJson(g);
  t.same(parseGenesis(JSON.parse(JSON.stringify(json))), g);
  t.equal((json.accounts as any[])[0].balance, '100000000000000000000');
  const built = await buildGenesisBlock(g);
  t.equal(built.block.header.height, 0);
  t.equal(g.epochLength, 100, 'epoch_length is optional, 100 by default');
  t.notOk('epoch_length' in json, 'and the default is not written back');
  const short = parseGenesis({ ...base(), epoch_length: 10 });
  t.equal(short.epochLength, 10);
  t.equal(genesisToJson(short).epoch_length, 10);
  t.not(Buffer.from((await buildGenesisBlock(short)).block.hash).toString('hex'), Buffer.from(built.block.hash).toString('hex'), 'the epoch length is part of the genesis state');
});

function rejects(t: Test, mutate: (g: Record<string, any>) => void, re: RegExp): void {
  const g = base();
  mutate(g);
  t.throws(() => parseGenesis(g), { code: 'BAD_GENESIS', message: re });
}

t.test('precise validation errors', async (t) => {
  rejects(t, (g) => (g.validators[0].address = v2.address), /validators\[0\]\.address: address .* is not the address of ed25519_public_key/);
  rejects(t, (g) => (g.validators[1].stake = (MIN_VALIDATOR_STAKE - 1n).toString()), /validators\[1\]\.stake: stake 999999999999 is below the minimum validator stake/);
  rejects(t, (g) => (g.validators = []), /validators: needs at least 1 validator/);
  rejects(t, (g) => g.validators.push(validatorJson(v1)), /validators\[2\]\.address: duplicate validator address/);
  rejects(t, (g) => g.accounts.push({ address: acct.address, balance: 1 }), /accounts\[2\]\.address: duplicate account address/);
  rejects(t, (g) => (g.network = 'Test-Net'), /network: must be lowercase letters and digits/);
  rejects(t, (g) => (g.chain_id = 'Ledger_1'), /chain_id: must be lowercase/);
  rejects(t, (g) => (g.genesis_time_ms = -1), /genesis_time_ms: must be an integer/);
  rejects(t, (g) => (g.native_token.decimals = 6), /native_token\.decimals: must be 8/);
  rejects(t, (g) => (g.accounts[0].balance = '1.5'), /accounts\[0\]\.balance: must be a non-negative integer/);
  rejects(t, (g) => (g.accounts[0].balance = -1), /accounts\[0\]\.balance/);
  rejects(t, (g) => (g.accounts[0].address = 'not-base58!'), /accounts\[0\]\.address/);
  rejects(t, (g) => (g.validators[0].bls_public_key = 'ab'.repeat(48)), /validators\[0\]\.bls_public_key: not a valid BLS12-381 G1 public key/);
  rejects(t, (g) => (g.validators[0].bls_public_key = 'ab'), /bls_public_key must be 48 bytes/);
  rejects(t, (g) => (g.validators[1].bls_public_key = g.validators[0].bls_public_key), /validators\[1\]\.bls_public_key: duplicate/);
  rejects(t, (g) => (g.validators[0].reputation = 1001), /reputation: must be an integer from 0 to 1000/);
  rejects(t, (g) => (g.validators[0].extra = 1), /validators\[0\]: unknown field "extra"/);
  rejects(t, (g) => (g.extra = 1), /unknown field "extra"/);
  rejects(t, (g) => (g.epoch_length = 9), /epoch_length: must be an integer from 10 to 1000000/);
  rejects(t, (g) => (g.epoch_length = '100'), /epoch_length: must be an integer/);
  rejects(t, (g) => delete g.accounts, /missing field "accounts"/);
  rejects(t, (g) => (g.accounts = {}), /accounts: must be an array/);
  rejects(t, (g) => (g.accounts[0].balance = (1n << 128n).toString()), /accounts\[0\]\.balance/);
  rejects(t, (g) => {
    g.accounts[0].balance = ((1n << 128n) - 1n).toString();
    g.accounts[1].balance = ((1n << 128n) - 1n).toString();
  }, /exceeds 2\^128 - 1/);
});

t.test('the testnet template is a valid template and not a startable genesis', async (t) => {
  const json = JSON.parse(readFileSync(new URL('../../genesis/testnet.json', import.meta.url), 'utf8'));
  const template = parseGenesisTemplate(json);
  t.equal(template.chainId, 'ledger-testnet-1');
  t.equal(template.network, 'testnet');
  t.same(template.nativeToken, { symbol: 'LGR', name: 'Ledger', decimals: 8 });
  t.throws(() => parseGenesis(json), { code: 'BAD_GENESIS', message: /at least 1 validator/ });
});
