import t from 'tap';
import { LedgerError } from '../../node/errors.js';
import { fromHex } from '../../node/protocol/bytes.js';
import { parseJson } from '../../node/protocol/json.js';
import { decodeTransaction, encodeTransaction, transactionFromJson, transactionToJson } from '../../node/protocol/transaction.js';
import { Prng, seedFromEnv } from '../fixtures/prng.js';
import { loadVectors } from '../fixtures/vectors.js';
import { BAD_UTF8, BYTE_MUTATIONS, concat, mutateBytes } from './lib/bytes-mutate.js';
import { fuzzText, mutateTree, pickTreeMutation, type FuzzValue } from './lib/json-mutate.js';
import { Tally } from './lib/tally.js';

/**
 * The protocol's decoders on mutated input, in process: every rejection must be a LedgerError
 * with a stable code, never a TypeError or RangeError from a shape the codec did not expect; and
 * whatever they accept must encode back to a form that decodes to the same transaction.
 * LEDGER_FUZZ_SEED and LEDGER_FUZZ_COUNT replay or widen a run.
 */

const SEED = seedFromEnv('LEDGER_FUZZ_SEED', 0x1ed6e5);
// in process a case costs microseconds, so each target runs four times the node test's count
const COUNT = 4 * Number(process.env.LEDGER_FUZZ_COUNT || 3000);

interface Vector {
  kind: string;
  json: FuzzValue;
  encoded?: string;
}
const vectors: Vector[] = [
  ...loadVectors<{ vectors: Vector[] }>('ledger-transactions.json').vectors,
  ...loadVectors<{ transactions: Vector[] }>('ledger-recovery.json').transactions,
  ...loadVectors<{ transactions: Vector[] }>('ledger-verification.json').transactions,
];
const encoded = vectors.filter((v) => v.encoded).map((v) => fromHex(v.encoded!));

/** Runs `decode`; returns the LedgerError code, 'ok', or throws a description of an untyped error. */
function typed(decode: () => unknown): string {
  try {
    decode();
    return 'ok';
  } catch (err) {
    if (err instanceof LedgerError && typeof err.code === 'string' && err.code.length > 0) return err.code;
    throw new Error(`untyped ${err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err)}`);
  }
}

function reencodes(bytes: Uint8Array): void {
  const tx = transactionFromJson(parseJson(fuzzText(transactionToJson(decodeTransaction(bytes), 'raw') as unknown as FuzzValue))).tx;
  if (Buffer.compare(encodeTransaction(tx), bytes) !== 0) throw new Error('a decoded transaction does not encode back to its bytes');
}

t.test(`transaction JSON: mutated tx_json only ever fails with a LedgerError (seed ${SEED}, ${COUNT} cases)`, async (t) => {
  const rng = new Prng(SEED);
  const tally = new Tally();
  const failures: string[] = [];
  for (let i = 0; i < COUNT; i++) {
    const caseRng = rng.fork();
    const base = caseRng.pick(vectors);
    let value = base.json;
    const kinds: string[] = [];
    for (let n = 1 + caseRng.int(3); n > 0; n--) {
      const kind = pickTreeMutation(caseRng);
      kinds.push(kind);
      value = mutateTree(caseRng, value, kind);
    }
    const text = fuzzText(value);
    try {
      const code = typed(() => {
        const { tx } = transactionFromJson(parseJson(text));
        // accepted: its own JSON form must decode to the same bytes
        const again = transactionFromJson(parseJson(fuzzText(transactionToJson(tx) as unknown as FuzzValue))).tx;
        if (Buffer.compare(encodeTransaction(again), encodeTransaction(tx)) !== 0) throw new Error('JSON round trip changed the transaction');
      });
      tally.add('code', code);
      tally.add('payload', base.kind);
      for (const k of kinds) tally.add('mutation', k);
    } catch (err) {
      failures.push(`case ${i} (${kinds.join('+')} on ${base.kind}): ${(err as Error).message}\n  input: ${text.slice(0, 600)}`);
    }
  }
  for (const line of tally.lines()) t.comment(line);
  t.same(failures.slice(0, 10), [], `seed ${SEED}: every rejection is a LedgerError (${failures.length} failures)`);
  t.ok((tally.get('code', 'ok') ?? 0) > 0, 'some mutations keep a valid transaction (reorders), so acceptance is exercised too');
});

t.test(`binary transactions: mutated encodings only ever fail with a LedgerError (seed ${SEED}, ${COUNT} cases)`, async (t) => {
  const rng = new Prng(SEED ^ 0x5a5a5a5a);
  const tally = new Tally();
  const failures: string[] = [];
  for (let i = 0; i < COUNT; i++) {
    const caseRng = rng.fork();
    let bytes = caseRng.pick(encoded);
    const kinds: string[] = [];
    for (let n = 1 + caseRng.int(2); n > 0; n--) {
      const kind = caseRng.pick(BYTE_MUTATIONS);
      kinds.push(kind);
      bytes = mutateBytes(caseRng, bytes, kind);
    }
    try {
      const code = typed(() => decodeTransaction(bytes));
      // what decodes must be the canonical encoding of what it decoded to, through the JSON form as well
      if (code === 'ok') reencodes(bytes);
      tally.add('code', code);
      for (const k of kinds) tally.add('mutation', k);
    } catch (err) {
      failures.push(`case ${i} (${kinds.join('+')}): ${(err as Error).message}\n  input: ${Buffer.from(bytes).toString('hex').slice(0, 600)}`);
    }
  }
  for (const line of tally.lines()) t.comment(line);
  t.same(failures.slice(0, 10), [], `seed ${SEED}: every rejection is a LedgerError (${failures.length} failures)`);
  t.ok((tally.get('code', 'TRUNCATED') ?? 0) > 0 && (tally.get('code', 'TRAILING_BYTES') ?? 0) > 0, 'truncation and extension are both reached');
});

t.test(`raw JSON text: parseJson fails only with JSON_PARSE (seed ${SEED}, ${COUNT} cases)`, async (t) => {
  const rng = new Prng(SEED ^ 0x0f0f0f0f);
  const tally = new Tally();
  const failures: string[] = [];
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (let i = 0; i < COUNT; i++) {
    const caseRng = rng.fork();
    let bytes: Uint8Array = Buffer.from(fuzzText(caseRng.pick(vectors).json));
    const kind = caseRng.pick([...BYTE_MUTATIONS, 'bad-utf8'] as const);
    if (kind === 'bad-utf8') {
      const at = caseRng.int(bytes.length);
      bytes = concat(bytes.subarray(0, at), caseRng.pick(BAD_UTF8), bytes.subarray(at));
    } else bytes = mutateBytes(caseRng, bytes, kind);
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      // the HTTP layer refuses a body that is not UTF-8 before any parser sees it
      tally.add('code', 'not-utf8');
      continue;
    }
    try {
      const code = typed(() => parseJson(text));
      if (code !== 'ok' && code !== 'JSON_PARSE') throw new Error(`parseJson failed with ${code}, not JSON_PARSE`);
      tally.add('code', code);
      tally.add('mutation', kind);
    } catch (err) {
      failures.push(`case ${i} (${kind}): ${(err as Error).message}\n  input: ${text.slice(0, 600)}`);
    }
  }
  for (const line of tally.lines()) t.comment(line);
  t.same(failures.slice(0, 10), [], `seed ${SEED}: every parse failure is JSON_PARSE (${failures.length} failures)`);
});
