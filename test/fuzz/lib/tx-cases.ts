import { addressBytesFromPublicKey, addressFromPublicKey } from '../../../node/protocol/address.js';
import { parseJson } from '../../../node/protocol/json.js';
import { payloadFromJson } from '../../../node/protocol/payloads.js';
import { signTransaction, transactionHash, transactionToJson, type Transaction } from '../../../node/protocol/transaction.js';
import type { Prng } from '../../fixtures/prng.js';
import { BYTE_MUTATIONS, mutateBytes } from './bytes-mutate.js';
import { clone, fuzzText, isPlainObject, mutateTree, pickTreeMutation, type FuzzValue } from './json-mutate.js';

/**
 * Transactions for ledger_sendTransaction: a valid transfer from a funded key, then either rewritten
 * into another JSON form of the same signed bytes (must be admitted under the same hash), broken by
 * structural or textual mutations (must be refused with a typed error), or re-signed with edge
 * values (nonces and amounts around every limit; admitted or refused by the rules); and payloads
 * of every other kind, re-signed, so that execution sees them too.
 */

export interface Sender {
  seed: Uint8Array;
  publicKey: Uint8Array;
}

export interface TxCase {
  label: string;
  /** the tx_json param */
  text: string;
  /** set when the node must admit it under this hash */
  mustAdmit?: string;
}

function signedTransfer(chainId: string, from: Sender, nonce: bigint, to: Uint8Array, amount: bigint): Transaction {
  return signTransaction(chainId, { senderPubkey: from.publicKey, nonce, payload: { kind: 'Transfer', to, amount } }, from.seed);
}

function toValue(tx: Transaction, chainId?: string): Record<string, FuzzValue> {
  return transactionToJson(tx, 'standard', chainId) as unknown as Record<string, FuzzValue>;
}

function shuffleKeys(rng: Prng, o: Record<string, FuzzValue>): Record<string, FuzzValue> {
  const keys = Object.keys(o);
  for (let i = keys.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [keys[i], keys[j]] = [keys[j]!, keys[i]!];
  }
  return Object.fromEntries(keys.map((k) => [k, o[k]!]));
}

/** `\uXXXX` escapes for some characters of every string: the same string once parsed. */
function escapeSome(rng: Prng, text: string): string {
  return text.replace(/"([A-Za-z0-9]+)"/g, (_m, s: string) => `"${[...s].map((c) => (rng.chance(0.3) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c)).join('')}"`);
}

export const EQUIVALENT_FORMS = ['reorder', 'to-bytes', 'amount-string', 'chain-id', 'whitespace', 'escapes'] as const;

/** The same signed transaction in another accepted JSON form (docs/protocol.md, "Transaction JSON"). */
export function equivalentCase(rng: Prng, chainId: string, from: Sender, nonce: bigint, to: Uint8Array, amount: bigint): TxCase {
  const tx = signedTransfer(chainId, from, nonce, to, amount);
  const forms = EQUIVALENT_FORMS.filter(() => rng.chance(0.4));
  if (forms.length === 0) forms.push(rng.pick(EQUIVALENT_FORMS));
  let o = toValue(tx, forms.includes('chain-id') ? chainId : undefined);
  const body = (o.payload as Record<string, Record<string, FuzzValue>>).Transfer!;
  if (forms.includes('to-bytes')) body.to = Array.from(to);
  if (forms.includes('amount-string')) body.amount = amount.toString();
  if (forms.includes('reorder')) o = shuffleKeys(rng, o);
  let text = fuzzText(o);
  if (forms.includes('escapes')) text = escapeSome(rng, text);
  if (forms.includes('whitespace')) text = text.replace(/[,:]/g, (c) => rng.pick([c, `${c} `, `\n${c}\t`, `\r\n  ${c}`]));
  return { label: `equivalent ${forms.join('+')}`, text, mustAdmit: transactionHash(chainId, tx) };
}

/** A valid transaction (a transfer of the funded key, or a published vector of any kind) broken one to three ways. */
export function brokenCase(rng: Prng, chainId: string, from: Sender, nonce: bigint, to: Uint8Array, vectors: readonly FuzzValue[]): TxCase {
  const base: FuzzValue = rng.chance(0.6) ? toValue(signedTransfer(chainId, from, nonce, to, 1n + BigInt(rng.int(1000)))) : clone(rng.pick(vectors));
  if (rng.chance(0.15)) {
    const kind = rng.pick(BYTE_MUTATIONS);
    return { label: `text ${kind}`, text: Buffer.from(mutateBytes(rng, Buffer.from(fuzzText(base)), kind)).toString('utf8') };
  }
  let v = base;
  const kinds: string[] = [];
  for (let n = 1 + rng.int(3); n > 0; n--) {
    const kind = pickTreeMutation(rng);
    kinds.push(kind);
    v = mutateTree(rng, v, kind);
  }
  if (isPlainObject(v) && rng.chance(0.1)) v.chain_id = rng.pick(['other-chain', chainId.toUpperCase(), '', 'x'.repeat(65)]);
  return { label: `broken ${kinds.join('+')}`, text: fuzzText(v) };
}

/**
 * A transfer signed with values at the edges: nonce behind, at, just past and far past the next one,
 * amounts of 0, 1, 2^53 + 1, beyond the balance and beyond u64; to the sender itself or the zero address.
 */
export function resignedCase(rng: Prng, chainId: string, from: Sender, nonce: bigint, recipients: readonly Uint8Array[]): TxCase {
  const nonceKind = rng.pick(['next', 'next', 'next', 'behind', 'gap', 'far', 'max'] as const);
  const n = { next: nonce, behind: nonce > 0n ? nonce - 1n : 0n, gap: nonce + 1n, far: nonce + 100_000n, max: 2n ** 64n - 1n }[nonceKind];
  const amountKind = rng.pick(['one', 'small', 'above-2^53', 'zero', 'above-balance', 'u64-max', 'u128-max'] as const);
  const amount = { one: 1n, small: BigInt(1 + rng.int(1_000_000)), 'above-2^53': 2n ** 53n + 1n, zero: 0n, 'above-balance': 10n ** 30n, 'u64-max': 2n ** 64n - 1n, 'u128-max': 2n ** 128n - 1n }[amountKind];
  const toKind = rng.pick(['pool', 'pool', 'self', 'zero'] as const);
  const to = toKind === 'pool' ? rng.pick(recipients) : toKind === 'zero' ? new Uint8Array(20) : addressBytesFromPublicKey(from.publicKey);
  const tx = signedTransfer(chainId, from, n, to, amount);
  return { label: `resigned nonce:${nonceKind} amount:${amountKind} to:${toKind}`, text: fuzzText(toValue(tx)) };
}

/** The sender of the published vectors: its address is swapped for the funded key's, so DIDs and validators name the sender. */
const VECTOR_ADDRESS = '2WRXAwiHCW7rvEpkN1nPmFY5hiUC';

/**
 * A published vector's payload of any kind, perhaps mutated, sent by the funded key with its next
 * nonce and signed for real whenever the payload still decodes: these reach execution, where most
 * fail with the fee paid (a DID not the sender's, a proof of possession for another address) and
 * some succeed (Stake, DidCreate). CredentialRequest is left out: its issuance fee is held until
 * the committee answers, outside any balance, which the supply check could not see.
 */
export function otherKindCase(rng: Prng, chainId: string, from: Sender, nonce: bigint, vectors: readonly FuzzValue[]): TxCase {
  const usable = vectors.filter((v) => !fuzzText(v).includes('"CredentialRequest"'));
  const sender = addressFromPublicKey(from.publicKey);
  const v = parseJson(fuzzText(rng.pick(usable)).split(VECTOR_ADDRESS).join(sender)) as Record<string, FuzzValue>;
  let payload: FuzzValue = v.payload ?? null;
  const kind = isPlainObject(payload) ? Object.keys(payload)[0]! : 'none';
  const mutation = rng.chance(0.4) ? pickTreeMutation(rng) : undefined;
  if (mutation) payload = mutateTree(rng, payload, mutation);
  const label = `kind ${kind}${mutation ? ` ${mutation}` : ''}`;
  try {
    const tx = signTransaction(chainId, { senderPubkey: from.publicKey, nonce, payload: payloadFromJson(parseJson(fuzzText(payload))) }, from.seed);
    return { label, text: fuzzText(toValue(tx)) };
  } catch {
    // no longer a payload (decoders.test.ts holds the decoder to typed errors): sent as is, under the sender's key and the vector's signature
    return { label, text: fuzzText({ ...v, sender_pubkey: Array.from(from.publicKey), nonce: nonce, payload }) };
  }
}

export interface RaceCase {
  label: string;
  /** tx_json texts sent together in one batch, whose requests the node runs concurrently */
  texts: string[];
  /** each text's hash and nonce, in the same order */
  txs: Array<{ hash: string; nonce: bigint }>;
}

/**
 * Transfers sent in one batch, so the node admits them concurrently: several at the same nonce
 * (exactly one may win, docs/mempool.md "Admission"), or a run of consecutive nonces in a shuffled
 * order (each is admitted, or finds its nonce already taken by an earlier gapped case).
 */
export function raceCase(rng: Prng, chainId: string, from: Sender, nonce: bigint, recipients: readonly Uint8Array[]): RaceCase {
  const sameNonce = rng.chance(0.5);
  const n = 2 + rng.int(7);
  const txs = Array.from({ length: n }, (_, i) => signedTransfer(chainId, from, sameNonce ? nonce : nonce + BigInt(i), rng.pick(recipients), BigInt(1 + rng.int(1000))));
  for (let i = txs.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [txs[i], txs[j]] = [txs[j]!, txs[i]!];
  }
  return {
    label: `race ${sameNonce ? 'same-nonce' : 'sequence'} ${n}`,
    texts: txs.map((tx) => fuzzText(toValue(tx))),
    txs: txs.map((tx) => ({ hash: transactionHash(chainId, tx), nonce: tx.nonce })),
  };
}
