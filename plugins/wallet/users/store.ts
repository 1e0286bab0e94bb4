import { randomBytes } from 'node:crypto';
import { LedgerError } from '../../../node/errors.js';
import { KeyedSerial } from '../../common/http/router.js';
import type { Batch, PluginDb, Table } from '../../common/store/tables.js';
import type { User } from '../types.js';

/**
 * Wallet users and their unique indexes (by DID, handle, ledger address, OIDC subject), each
 * change one LevelDB batch. Writes go one at a time, so two registrations of one DID or one
 * handle cannot both pass the uniqueness check.
 */

export const newUserId = (): string => `usr_${randomBytes(12).toString('hex')}`;

export const HANDLE_PATTERN = /^[a-z0-9](?:[a-z0-9_.-]{1,30}[a-z0-9])$/;

type Unique = 'did' | 'handle' | 'address' | 'oidcSub';

export class UserStore {
  private readonly users: Table<User>;
  private readonly index: Record<Unique, Table<string>>;
  private readonly serial = new KeyedSerial();

  constructor(private readonly db: PluginDb) {
    this.users = db.json<User>('users');
    this.index = {
      did: db.json<string>('user-by-did'),
      handle: db.json<string>('user-by-handle'),
      address: db.json<string>('user-by-address'),
      oidcSub: db.json<string>('user-by-sub'),
    };
  }

  get(id: string): Promise<User | undefined> {
    return this.users.get(id);
  }

  async require(id: string): Promise<User> {
    const user = await this.users.get(id);
    if (!user) throw new LedgerError('USER_NOT_FOUND', `no wallet user ${id}`, 'not_found');
    return user;
  }

  byDid(did: string): Promise<User | undefined> {
    return this.by('did', did);
  }

  byHandle(handle: string): Promise<User | undefined> {
    return this.by('handle', handle.toLowerCase());
  }

  /** the user whose signing key's account this is */
  byAddress(address: string): Promise<User | undefined> {
    return this.by('address', address);
  }

  bySub(sub: string): Promise<User | undefined> {
    return this.by('oidcSub', sub);
  }

  /**
   * Stores a new user; 409 when its DID, handle, address or OIDC subject belongs to another.
   * `also` adds what must be written with it to the same batch.
   */
  create(user: User, also?: (batch: Batch) => void): Promise<User> {
    return this.serial.run('users', async () => {
      await this.checkFree(user);
      const batch = this.db.batch().put(this.users, user.id, user);
      for (const [field, table] of this.entries()) {
        const value = user[field];
        if (value) batch.put(table, value, user.id);
      }
      also?.(batch);
      await batch.write();
      return user;
    });
  }

  /** Applies `change` to the stored user and moves its index entries; 409 on a taken value. `also` as in create. */
  update(id: string, change: (user: User) => User, also?: (batch: Batch) => void): Promise<User> {
    return this.serial.run('users', async () => {
      const before = await this.require(id);
      const after = { ...change(structuredClone(before)), id, updatedAt: new Date().toISOString() };
      await this.checkFree(after);
      const batch = this.db.batch().put(this.users, id, after);
      for (const [field, table] of this.entries()) {
        if (before[field] === after[field]) continue;
        if (before[field]) batch.del(table, before[field]!);
        if (after[field]) batch.put(table, after[field]!, id);
      }
      also?.(batch);
      await batch.write();
      return after;
    });
  }

  private async by(field: Unique, value: string): Promise<User | undefined> {
    const id = await this.index[field].get(value);
    return id === undefined ? undefined : this.users.get(id);
  }

  private entries(): Array<[Unique, Table<string>]> {
    return Object.entries(this.index) as Array<[Unique, Table<string>]>;
  }

  private async checkFree(user: User): Promise<void> {
    const names: Record<Unique, [string, string]> = { did: ['DID', 'DID_TAKEN'], handle: ['handle', 'HANDLE_TAKEN'], address: ['key', 'KEY_TAKEN'], oidcSub: ['sign-in account', 'SIGN_IN_TAKEN'] };
    for (const [field, table] of this.entries()) {
      const value = user[field];
      if (!value) continue;
      const owner = await table.get(value);
      if (owner !== undefined && owner !== user.id) {
        throw new LedgerError(names[field][1], `this ${names[field][0]} already belongs to another wallet user`, 'conflict', { field });
      }
    }
  }
}
