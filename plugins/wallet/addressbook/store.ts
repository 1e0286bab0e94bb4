import { randomBytes } from 'node:crypto';
import { LedgerError } from '../../../node/errors.js';
import { KeyedSerial } from '../../common/http/router.js';
import { key, prefix, type PluginDb, type Table } from '../../common/store/tables.js';

/**
 * Each user's address book (table `address-book`, keyed by user and entry id): people and places
 * the user sends to, by DID and/or by address on the ledger, Ethereum or Bitcoin. A user reads
 * and deletes only their own entries; another user's id is as unknown as a made-up one.
 */

export const MAX_ENTRIES_PER_USER = 500;
export const ADDRESS_BOOK_CHAINS = ['ledger', 'eth', 'btc'] as const;
export type AddressBookChain = (typeof ADDRESS_BOOK_CHAINS)[number];

export interface AddressBookAddress {
  chain: AddressBookChain;
  address: string;
}

export interface AddressBookEntry {
  /** `ab_` + 24 hex */
  id: string;
  name: string;
  did: string | null;
  addresses: AddressBookAddress[];
  createdAt: string;
}

interface StoredEntry extends AddressBookEntry {
  userId: string;
}

export const ENTRY_ID = /^ab_[0-9a-f]{24}$/;

export class AddressBookStore {
  private readonly entries: Table<StoredEntry>;
  /** one create per user at a time, so the size limit holds */
  private readonly serial = new KeyedSerial();

  constructor(
    db: PluginDb,
    private readonly now: () => number = Date.now,
  ) {
    this.entries = db.json<StoredEntry>('address-book');
  }

  /** the user's entries by name (case-insensitive), then by age */
  async list(userId: string): Promise<AddressBookEntry[]> {
    const out: AddressBookEntry[] = [];
    for await (const [, e] of this.entries.entries(prefix(userId))) out.push(view(e));
    return out.sort((a, b) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  /** Stores a new entry; 409 when the user already has MAX_ENTRIES_PER_USER. */
  create(userId: string, input: { name: string; did: string | null; addresses: AddressBookAddress[] }): Promise<AddressBookEntry> {
    return this.serial.run(userId, async () => {
      let count = 0;
      for await (const _ of this.entries.keys(prefix(userId))) count++;
      if (count >= MAX_ENTRIES_PER_USER) throw new LedgerError('ADDRESS_BOOK_FULL', `an address book holds at most ${MAX_ENTRIES_PER_USER} entries: delete some first`, 'conflict');
      const entry: StoredEntry = {
        id: `ab_${randomBytes(12).toString('hex')}`,
        userId,
        name: input.name,
        did: input.did,
        addresses: input.addresses.map((a) => ({ chain: a.chain, address: a.address })),
        createdAt: new Date(this.now()).toISOString(),
      };
      await this.entries.put(key(userId, entry.id), entry);
      return view(entry);
    });
  }

  /** Deletes the user's entry; false when the user has no such entry. */
  remove(userId: string, id: string): Promise<boolean> {
    return this.serial.run(userId, async () => {
      if (!ENTRY_ID.test(id)) return false;
      const k = key(userId, id);
      if (!(await this.entries.get(k))) return false;
      await this.entries.del(k);
      return true;
    });
  }
}

function view(e: StoredEntry): AddressBookEntry {
  return { id: e.id, name: e.name, did: e.did, addresses: e.addresses, createdAt: e.createdAt };
}
