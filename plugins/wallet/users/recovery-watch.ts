import type { CommittedBlock } from '../../../node/chain/app.js';
import { toHex } from '../../../node/protocol/bytes.js';
import { parseDid } from '../../../node/protocol/did.js';
import { SUCCESS } from '../../../node/protocol/receipt.js';
import { key, type Batch, type PluginDb, type Table } from '../../common/store/tables.js';
import type { BlockWatcher } from '../chain/tx-index.js';
import type { WalletBase } from '../services.js';
import type { KeyRevocations } from './key-revocations.js';
import type { UserStore } from './store.js';

/**
 * Sees a recovery replace the key of a wallet user's DID and revokes the old key
 * (key-revocations.ts), reading the blocks the history index reads, in its batch. A key changes
 * in one of two ways (docs/protocol.md, "Social recovery"):
 *   - a DidRecover under a policy with no delay: the receipt's event `DidRecovered`;
 *   - a delayed one: `RecoveryStarted` names the due height, and the block at that height
 *     completes it with no event. The watch notes the height and looks once a block at or past
 *     it is read (a cancelled recovery then shows no change).
 * Either way it compares the DID's key on chain with the user's key. The chain is read as
 * committed now, which may be ahead of the blocks being read: a key that differs was replaced,
 * whichever recovery replaced it, and one that is the DID's key again is restored (its sessions
 * from before stay refused: key-revocations.ts).
 *
 * Table `recovery-due` (json): <due height, 12 digits> SEP <did> -> did, for every delayed
 * recovery on chain, not only users' (a DID may be registered here during the delay).
 */

const HEIGHT_WIDTH = 12;
const heightKey = (h: number): string => String(h).padStart(HEIGHT_WIDTH, '0');

export class RecoveryWatch implements BlockWatcher {
  private readonly due: Table<string>;

  constructor(private readonly d: { db: PluginDb; chain: WalletBase['chain']; users: Pick<UserStore, 'byDid'>; revocations: Pick<KeyRevocations, 'revoke' | 'restore'>; now: () => number }) {
    this.due = d.db.json<string>('recovery-due');
  }

  async apply(blocks: readonly CommittedBlock[], batch: Batch): Promise<void> {
    const last = blocks.at(-1);
    if (!last) return;
    const height = last.block.header.height;
    const changed = new Set<string>();
    for (const receipt of blocks.flatMap((b) => b.receipts)) {
      if (receipt.status !== SUCCESS) continue;
      for (const e of receipt.events) {
        if (e.type === 'DidRecovered' || (e.type === 'RecoveryStarted' && e.due_height <= height)) changed.add(e.did);
        else if (e.type === 'RecoveryStarted') batch.put(this.due, key(heightKey(e.due_height), e.did), e.did);
      }
    }
    for await (const [k, did] of this.due.entries({ lt: heightKey(height + 1) })) {
      changed.add(did);
      batch.del(this.due, k);
    }
    for (const did of changed) await this.check(did, height, batch);
  }

  private async check(did: string, height: number, batch: Batch): Promise<void> {
    const user = await this.d.users.byDid(did);
    const record = user && (await this.d.chain.did(parseDid(did).identifier));
    if (!user || !record?.publicKey) return;
    const current = toHex(record.publicKey);
    const at = new Date(this.d.now()).toISOString();
    await this.d.revocations.restore(batch, did, current, { height, restoredAt: at });
    if (user.publicKey === current) return;
    this.d.revocations.revoke(batch, { did, publicKey: user.publicKey, replacedBy: current, height, revokedAt: at });
  }
}
