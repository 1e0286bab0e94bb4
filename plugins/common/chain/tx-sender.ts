import { signAndEncode } from '../../../node/client/builder.js';
import { isLedgerError } from '../../../node/errors.js';
import type { Logger } from '../../../node/logging.js';
import type { ChainView } from '../../../node/plugins/chain-view.js';
import { REVOCATION_LIST_ENTRIES } from '../../../node/protocol/revocation-list.js';
import type { UnsignedTransaction } from '../../../node/protocol/transaction.js';
import type { Batch, PluginDb } from '../store/tables.js';
import type { ServiceKey } from './service-key.js';

/**
 * Every transaction a plugin's service key signs goes through here, one at a time: the nonce is
 * the chain's account nonce plus the key's own transactions still in flight, and a credential request's
 * revocation position is the chain's next one plus the in-flight requests'. Each signed
 * transaction is stored (table `table`, by nonce) before it is submitted, so after a restart,
 * when the mempool has forgotten them, they are submitted again in nonce order and no nonce gap
 * strands the later ones.
 */

export interface Position {
  list: number;
  index: number;
}

export interface SentTx {
  nonce: string;
  hash: string;
  json: string;
  kind: string;
  /** what it is for: a session id, a credential id, the DID */
  ref: string;
  /** a credential request's flat revocation position (list × entries + index) */
  position?: number;
  createdAt: number;
}

/** mempool answers that mean the transaction is (or was) already there */
const ALREADY_THERE = new Set(['ALREADY_KNOWN', 'NONCE_TOO_LOW', 'NONCE_TAKEN']);

export interface TxSenderDeps {
  db: PluginDb;
  /** the table of the stored transactions */
  table: string;
  /** who signs, in log lines: "the KYC issuer" */
  signer: string;
  chain: ChainView;
  chainId: string;
  submit(txJson: string): Promise<string>;
  log: Logger;
  now(): number;
}

const nonceKey = (nonce: bigint): string => nonce.toString().padStart(20, '0');

export class TxSender {
  private readonly table;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly d: TxSenderDeps,
    private readonly key: ServiceKey,
  ) {
    this.table = d.db.json<SentTx>(d.table);
  }

  /**
   * Allocates the nonce (and the revocation position when `withPosition`), builds and signs the
   * transaction, stores it with whatever `record` adds to the same batch, then submits it. A
   * refused submission removes the stored transaction and throws the mempool's error.
   */
  send(o: {
    kind: string;
    ref: string;
    withPosition?: boolean;
    build: (nonce: bigint, position: Position | undefined) => UnsignedTransaction | Promise<UnsignedTransaction>;
    record?: (batch: Batch, sent: SentTx) => void;
  }): Promise<SentTx> {
    return this.serial(async () => {
      const { nonce: chainNonce } = await this.d.chain.account(this.key.identifier);
      const inFlight = await this.inFlight(chainNonce);
      let nonce = chainNonce;
      let flat: number | undefined;
      for (const t of inFlight) {
        if (BigInt(t.nonce) >= nonce) nonce = BigInt(t.nonce) + 1n;
      }
      if (o.withPosition) {
        const next = await this.d.chain.nextRevocationPosition(this.key.identifier);
        flat = next.list * REVOCATION_LIST_ENTRIES + next.index;
        for (const t of inFlight) if (t.position !== undefined && t.position >= flat) flat = t.position + 1;
      }
      const position = flat === undefined ? undefined : { list: Math.floor(flat / REVOCATION_LIST_ENTRIES), index: flat % REVOCATION_LIST_ENTRIES };
      const signed = signAndEncode(this.d.chainId, await o.build(nonce, position), this.key.seed);
      const sent: SentTx = { nonce: nonce.toString(), hash: signed.hash, json: signed.json, kind: o.kind, ref: o.ref, ...(flat === undefined ? {} : { position: flat }), createdAt: this.d.now() };
      const batch = this.d.db.batch().put(this.table, nonceKey(nonce), sent);
      o.record?.(batch, sent);
      await batch.write();
      try {
        await this.d.submit(signed.json);
      } catch (err) {
        if (!(isLedgerError(err) && err.code === 'ALREADY_KNOWN')) {
          await this.table.del(nonceKey(nonce));
          throw err;
        }
      }
      return sent;
    });
  }

  /** Submits the stored transactions the chain has not included yet again, in nonce order. */
  resubmitPending(): Promise<number> {
    return this.serial(async () => {
      const { nonce } = await this.d.chain.account(this.key.identifier);
      let sent = 0;
      for (const t of await this.inFlight(nonce)) {
        if (await this.d.chain.receipt(t.hash)) continue;
        try {
          await this.d.submit(t.json);
          sent++;
        } catch (err) {
          if (isLedgerError(err) && ALREADY_THERE.has(err.code)) continue;
          this.d.log.warn({ err, hash: t.hash, kind: t.kind }, `${this.d.signer} could not submit its ${t.kind} transaction ${t.hash} again`);
        }
      }
      return sent;
    });
  }

  /** The stored transactions with nonce ≥ the chain's, in nonce order; older ones are dropped. */
  private async inFlight(chainNonce: bigint): Promise<SentTx[]> {
    const out: SentTx[] = [];
    const done = this.d.db.batch();
    for await (const [k, t] of this.table.entries()) {
      if (BigInt(t.nonce) < chainNonce) done.del(this.table, k);
      else out.push(t);
    }
    await done.write();
    return out;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }
}
