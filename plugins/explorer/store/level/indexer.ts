import type { CommittedBlock } from '../../../../node/chain/app.js';
import { stringifyJson } from '../../../../node/protocol/json.js';
import type { CredentialRecord } from '../../../../node/protocol/credential-records.js';
import type { BinarySublevel } from '../../../../node/state/db.js';
import { senderDid } from '../../event-rows.js';
import { addressesOf, blockRow, txRow, type AddressRecord, type BlockRow, type CredentialRow, type DidRow, type Indexed, type TxRow, type VerificationRow } from '../../rows.js';
import type { IndexWriter } from '../types.js';
import { indexIdentity } from './identity.js';
import { Batch, getNumber, pad, position } from './layout.js';
import { expireDue, indexVerification, loadDues, type Dues } from './verification.js';

/**
 * Indexes committed blocks into the explorer's LevelDB namespace. One LevelDB batch holds a block's rows
 * (or several blocks' when it catches up), their index entries, the updated totals and the
 * cursor, so a crash leaves the index before or after them: a restart resumes at the cursor with
 * no gap and no duplicate.
 */

export interface IndexerDeps {
  store: BinarySublevel;
  network: string;
  /** a credential's record in committed state (its registered fields never change) */
  credential(id: Uint8Array): Promise<CredentialRecord | undefined>;
  now?: () => Date;
}

export class Indexer implements IndexWriter {
  /** the cursor as last written: this indexer is the namespace's only writer */
  private next: number | undefined;
  /** the pending verification requests' deadlines as of the cursor, kept here after the first read */
  private dues: Dues | undefined;

  constructor(private readonly d: IndexerDeps) {}

  /** The next seq to index. */
  async cursor(): Promise<number> {
    this.next ??= await getNumber(this.d.store, 'cursor');
    return this.next;
  }

  /**
   * Indexes consecutive blocks in one batch (catching up, many are waiting): the cursor still
   * moves in the same write as the rows, so a crash leaves the index before or after all of them.
   */
  async applyAll(blocks: readonly CommittedBlock[]): Promise<Indexed[]> {
    let next = await this.cursor();
    for (const c of blocks) {
      if (c.seq !== next) throw new Error(`the explorer index expects seq ${next}, got ${c.seq}`);
      next = c.seq + 1;
    }
    const now = this.d.now ?? (() => new Date());
    const built = blocks.map((c) => rowsOf(c, now().toISOString()));
    const b = new Batch(this.d.store);
    await b.prefetch(keysRead(built));
    const touched: Touched = new Map();
    // a copy: the kept one changes only once the batch is written
    const dues: Dues = new Map((this.dues ??= await loadDues(this.d.store)));
    const out: Indexed[] = [];
    for (const r of built) out.push(await this.index(b, r, touched, dues));
    // an address's sort entry moves once per batch, from its stored count to its last one
    for (const [a, stored] of touched) {
      const after = (await b.get<AddressRecord>(`addr:${a}`))!;
      if (stored !== undefined) b.del(`addrcount:${pad(stored, 12)}:${a}`);
      b.put(`addrcount:${pad(after.tx_count, 12)}:${a}`, a);
    }
    b.put('cursor', String(next));
    await b.write();
    this.next = next;
    this.dues = dues;
    return out;
  }

  private async index(b: Batch, r: BlockRows, touched: Touched, dues: Dues): Promise<Indexed> {
    const { c, at, block, txs } = r;
    const height = pad(c.block.header.height, 16);
    const time = pad(c.block.header.timestampMs, 16);
    b.append(`block:${height}`, stringifyJson(block));
    b.append(`blockhash:${block.hash}`, block.height);
    b.append(`blocktime:${time}:${height}`, block.height);
    await b.add('blocks');
    if (c.seq > 0) {
      b.append(`proposed:${block.proposer}:${height}`, block.height);
      await b.add(`proposed:${block.proposer}`);
      await b.add('proposed');
    }
    const dids: DidRow[] = [];
    const credentials: CredentialRow[] = [];
    const verifications = new Map<string, VerificationRow>();
    for (const [i, row] of txs.entries()) {
      const tx = c.block.transactions[i]!;
      const pos = position(c.seq, i);
      b.append(`tx:${row.hash}`, stringifyJson(row));
      b.append(`txseq:${pos}`, row.hash);
      b.append(`txtype:${row.type}:${pos}`, row.hash);
      b.append(`txtime:${time}:${pos}`, row.hash);
      await b.add('txs');
      if ((await b.get(`sender:${row.sender}`)) === undefined) {
        b.put(`sender:${row.sender}`, '1');
        await b.add('senders');
      }
      await b.add(`txtype:${row.type}`);
      for (const a of addressesOf(row)) {
        b.append(`txaddr:${a}:${pos}`, row.hash);
        await b.add(`txaddr:${a}`);
        const prev = await b.get<AddressRecord>(`addr:${a}`);
        if (!prev) {
          await b.add('addresses');
          b.append(`addrfirst:${pad(Number(row.timestamp_ms), 16)}:${a}`, a);
        }
        if (!touched.has(a)) touched.set(a, prev?.tx_count);
        b.put(`addr:${a}`, {
          address: a,
          first_seen: prev?.first_seen ?? row.timestamp_ms,
          last_seen: row.timestamp_ms,
          tx_count: (prev?.tx_count ?? 0) + 1,
          did: prev?.did ?? senderDid(this.d.network, tx, row, a),
          created_at: prev?.created_at ?? at,
          updated_at: at,
        } satisfies AddressRecord);
      }
      const added = await indexIdentity(b, { network: this.d.network, tx, receipt: c.receipts[i]!, row, pos, at, credential: this.d.credential });
      dids.push(...added.dids);
      credentials.push(...added.credentials);
      await indexVerification(b, { tx, receipt: c.receipts[i]!, row, pos }, dues, verifications);
    }
    await expireDue(b, c.block.header.height, dues, verifications);
    return { block, txs, dids, credentials, verifications: [...verifications.values()] };
  }
}

/** The addresses a batch updates, each with its transaction count as stored before the batch (undefined: new). */
type Touched = Map<string, number | undefined>;

/** A block's rows, built before anything is read, so their keys can be read in one go. */
interface BlockRows {
  c: CommittedBlock;
  at: string;
  block: BlockRow;
  txs: TxRow[];
}

function rowsOf(c: CommittedBlock, at: string): BlockRows {
  return { c, at, block: blockRow(c.block, at), txs: c.block.transactions.map((tx, i) => txRow(tx, c.receipts[i]!, c.block, at)) };
}

/** The stored keys indexing these blocks reads (totals, address rows, sender markers), to fetch in one go. */
function* keysRead(built: readonly BlockRows[]): Generator<string> {
  yield* ['count:blocks', 'count:proposed', 'count:txs', 'count:senders', 'count:addresses'];
  for (const { block, txs } of built) {
    yield `count:proposed:${block.proposer}`;
    for (const row of txs) {
      yield `count:txtype:${row.type}`;
      yield `sender:${row.sender}`;
      for (const a of addressesOf(row)) {
        yield `addr:${a}`;
        yield `count:txaddr:${a}`;
      }
    }
  }
}
