import { bls12_381 } from '@noble/curves/bls12-381.js';
import { invalid, type LedgerError } from '../errors.js';
import { addressFromPublicKey, formatAddress, parseAddress } from './address.js';
import { amountFromJson, DECIMALS } from './amount.js';
import { fromHex, toHex, U128_MAX } from './bytes.js';
import { DEFAULT_EPOCH_LENGTH, LATEST_PROTOCOL_VERSION, MAX_EPOCH_LENGTH, MAX_REPUTATION, MIN_EPOCH_LENGTH, MIN_VALIDATOR_STAKE } from './params.js';

/**
 * The genesis file: the chain id, the network segment of its DIDs, the genesis time, the native
 * token, the funded accounts and the initial validator set. Amounts are integers in smallest units,
 * written as JSON integers or decimal-digit strings (for tools whose JSON loses big integers).
 */

export interface GenesisAccount {
  address: Uint8Array;
  balance: bigint;
}

export interface GenesisValidator {
  address: Uint8Array;
  ed25519PublicKey: Uint8Array;
  blsPublicKey: Uint8Array;
  stake: bigint;
  reputation: number;
}

export interface Genesis {
  chainId: string;
  network: string;
  genesisTimeMs: number;
  nativeToken: { symbol: string; name: string; decimals: number };
  accounts: GenesisAccount[];
  validators: GenesisValidator[];
  /** heights per epoch: the validator set may change every this many blocks (optional, default 100) */
  epochLength: number;
  /** the address whose key may revoke any credential (optional; docs/protocol.md, "Revocation") */
  governance?: Uint8Array;
  /**
   * The KYC level a validator needs to join the set after genesis (optional, default 2 as seed 002
   * asks; 0 turns the rule off, for test networks). Genesis validators are qualified by genesis.
   */
  validatorKycLevel: number;
  /** the rules the chain runs (optional, default 1; docs/protocol.md, "Protocol versions") */
  protocolVersion: number;
}

export const CHAIN_ID_RE = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const NETWORK_RE = /^[a-z0-9]{1,32}$/;
const TOP_FIELDS = ['chain_id', 'network', 'genesis_time_ms', 'native_token', 'accounts', 'validators'];
const OPTIONAL_TOP_FIELDS = ['epoch_length', 'governance', 'validator_kyc_level', 'protocol_version'];
export const DEFAULT_VALIDATOR_KYC_LEVEL = 2;
const TOKEN_FIELDS = ['symbol', 'name', 'decimals'];
const ACCOUNT_FIELDS = ['address', 'balance'];
const VALIDATOR_FIELDS = ['address', 'ed25519_public_key', 'bls_public_key', 'stake', 'reputation'];

function bad(message: string, path: string): LedgerError {
  return invalid('BAD_GENESIS', `genesis ${path}: ${message}`, { path });
}

function object(value: unknown, path: string, fields: string[], optional: string[] = []): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('must be an object', path);
  const o = value as Record<string, unknown>;
  for (const key of Object.keys(o)) if (!fields.includes(key) && !optional.includes(key)) throw bad(`unknown field ${JSON.stringify(key)}`, path || '(top level)');
  for (const key of fields) if (!(key in o)) throw bad(`missing field ${JSON.stringify(key)}`, path || '(top level)');
  return o;
}

function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw bad('must be an array', path);
  return value;
}

function amount(value: unknown, path: string): bigint {
  try {
    return amountFromJson(value, path);
  } catch {
    throw bad('must be a non-negative integer in smallest units (a JSON integer or a string of digits)', path);
  }
}

function address(value: unknown, path: string): Uint8Array {
  try {
    return parseAddress(value);
  } catch (err) {
    throw bad((err as Error).message, path);
  }
}

function hex(value: unknown, length: number, path: string): Uint8Array {
  try {
    return fromHex(value as string, length, path);
  } catch (err) {
    throw bad((err as Error).message, path);
  }
}

function blsKey(value: unknown, path: string): Uint8Array {
  const bytes = hex(value, 48, path);
  try {
    const point = bls12_381.G1.Point.fromBytes(bytes);
    if (point.is0()) throw new Error('the point at infinity is not a public key');
    point.assertValidity(); // on the curve and in the G1 subgroup
  } catch (err) {
    throw bad(`not a valid BLS12-381 G1 public key: ${(err as Error).message}`, path);
  }
  return bytes;
}

function integer(value: unknown, min: number, max: number, path: string): number {
  const n = typeof value === 'bigint' ? Number(value) : value;
  if (!Number.isSafeInteger(n) || (n as number) < min || (n as number) > max) throw bad(`must be an integer from ${min} to ${max}`, path);
  return n as number;
}

function str(value: unknown, re: RegExp, rule: string, path: string): string {
  if (typeof value !== 'string' || !re.test(value)) throw bad(`must be ${rule}, got ${JSON.stringify(value)}`, path);
  return value;
}

function parse(json: unknown, minValidators: number): Genesis {
  const o = object(json, '', TOP_FIELDS, OPTIONAL_TOP_FIELDS);
  const chainId = str(o.chain_id, CHAIN_ID_RE, 'lowercase letters, digits and hyphens, 1-64 characters, starting with a letter or digit', 'chain_id');
  const network = str(o.network, NETWORK_RE, 'lowercase letters and digits, 1-32 characters', 'network');
  const genesisTimeMs = integer(o.genesis_time_ms, 0, Number.MAX_SAFE_INTEGER, 'genesis_time_ms');
  const epochLength = o.epoch_length === undefined ? DEFAULT_EPOCH_LENGTH : integer(o.epoch_length, MIN_EPOCH_LENGTH, MAX_EPOCH_LENGTH, 'epoch_length');
  const t = object(o.native_token, 'native_token', TOKEN_FIELDS);
  const symbol = str(t.symbol, /^[A-Z0-9]{1,12}$/, 'uppercase letters and digits, 1-12 characters', 'native_token.symbol');
  const name = str(t.name, /^\S(?:.{0,62}\S)?$/, 'a name of 1-64 characters', 'native_token.name');
  if (t.decimals !== DECIMALS) throw bad(`must be ${DECIMALS}: the protocol fixes the native token's decimals`, 'native_token.decimals');

  let supply = 0n;
  const seenAccounts = new Set<string>();
  const accounts = array(o.accounts, 'accounts').map((raw, i): GenesisAccount => {
    const path = `accounts[${i}]`;
    const a = object(raw, path, ACCOUNT_FIELDS);
    const addr = address(a.address, `${path}.address`);
    const text = formatAddress(addr);
    if (seenAccounts.has(text)) throw bad(`duplicate account address ${text}`, `${path}.address`);
    seenAccounts.add(text);
    const balance = amount(a.balance, `${path}.balance`);
    supply += balance;
    return { address: addr, balance };
  });

  const seenValidators = new Set<string>();
  const seenBls = new Set<string>();
  const validators = array(o.validators, 'validators').map((raw, i): GenesisValidator => {
    const path = `validators[${i}]`;
    const v = object(raw, path, VALIDATOR_FIELDS);
    const addr = address(v.address, `${path}.address`);
    const ed25519PublicKey = hex(v.ed25519_public_key, 32, `${path}.ed25519_public_key`);
    const derived = addressFromPublicKey(ed25519PublicKey);
    if (formatAddress(addr) !== derived) throw bad(`address ${formatAddress(addr)} is not the address of ed25519_public_key (${derived})`, `${path}.address`);
    if (seenValidators.has(derived)) throw bad(`duplicate validator address ${derived}`, `${path}.address`);
    seenValidators.add(derived);
    const blsPublicKey = blsKey(v.bls_public_key, `${path}.bls_public_key`);
    const blsHex = toHex(blsPublicKey);
    if (seenBls.has(blsHex)) throw bad('duplicate bls_public_key', `${path}.bls_public_key`);
    seenBls.add(blsHex);
    const stake = amount(v.stake, `${path}.stake`);
    if (stake < MIN_VALIDATOR_STAKE) {
      throw bad(`stake ${stake} is below the minimum validator stake of ${MIN_VALIDATOR_STAKE} smallest units (10,000 tokens)`, `${path}.stake`);
    }
    supply += stake;
    const reputation = integer(v.reputation, 0, MAX_REPUTATION, `${path}.reputation`);
    return { address: addr, ed25519PublicKey, blsPublicKey, stake, reputation };
  });
  if (validators.length < minValidators) throw bad(`needs at least ${minValidators} validator`, 'validators');
  if (supply > U128_MAX) throw bad('the sum of balances and stakes exceeds 2^128 - 1', 'accounts');

  const governance = o.governance === undefined ? {} : { governance: address(o.governance, 'governance') };
  const validatorKycLevel = o.validator_kyc_level === undefined ? DEFAULT_VALIDATOR_KYC_LEVEL : integer(o.validator_kyc_level, 0, 3, 'validator_kyc_level');
  const protocolVersion = o.protocol_version === undefined ? 1 : integer(o.protocol_version, 1, LATEST_PROTOCOL_VERSION, 'protocol_version');
  return { chainId, network, genesisTimeMs, nativeToken: { symbol, name, decimals: DECIMALS }, accounts, validators, epochLength, validatorKycLevel, protocolVersion, ...governance };
}

/** A genesis a chain can start from; throws LedgerError BAD_GENESIS naming the offending field. */
export function parseGenesis(json: unknown): Genesis {
  return parse(json, 1);
}

/** A network's template (genesis/<network>.json): the same rules, but the validator set may be empty. */
export function parseGenesisTemplate(json: unknown): Genesis {
  return parse(json, 0);
}

/** The JSON form; amounts are decimal-digit strings so that any JSON reader keeps them exact. */
export function genesisToJson(g: Genesis): Record<string, unknown> {
  return {
    chain_id: g.chainId,
    network: g.network,
    genesis_time_ms: g.genesisTimeMs,
    native_token: { symbol: g.nativeToken.symbol, name: g.nativeToken.name, decimals: g.nativeToken.decimals },
    accounts: g.accounts.map((a) => ({ address: formatAddress(a.address), balance: a.balance.toString() })),
    validators: g.validators.map((v) => ({
      address: formatAddress(v.address),
      ed25519_public_key: toHex(v.ed25519PublicKey),
      bls_public_key: toHex(v.blsPublicKey),
      stake: v.stake.toString(),
      reputation: v.reputation,
    })),
    ...(g.epochLength === DEFAULT_EPOCH_LENGTH ? {} : { epoch_length: g.epochLength }),
    ...(g.governance ? { governance: formatAddress(g.governance) } : {}),
    ...(g.validatorKycLevel === DEFAULT_VALIDATOR_KYC_LEVEL ? {} : { validator_kyc_level: g.validatorKycLevel }),
    ...(g.protocolVersion === 1 ? {} : { protocol_version: g.protocolVersion }),
  };
}
