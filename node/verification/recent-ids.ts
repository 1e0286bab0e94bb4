/** The last `limit` ids added, the oldest forgotten first: a bounded memory of what a node has seen. */
export class RecentIds {
  private readonly ids = new Set<string>();

  constructor(private readonly limit: number) {}

  /** Remembers `id`; false when it was remembered already. */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    if (this.ids.size >= this.limit) this.ids.delete(this.ids.values().next().value!);
    this.ids.add(id);
    return true;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }
}
