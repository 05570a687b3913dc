import type { HitOptions, NewKey, StateStore, StoredKey } from './store.ts';
import type { QuotaWindow } from './windows.ts';

/**
 * State in this process only, gone when it exits: for `hcas get --anonymous` (an anonymous caller with its
 * whole quota left) and for tests of the gate's rules. Never what a server uses.
 */
export class MemoryStore implements StateStore {
  readonly backend = 'memory';
  readonly location = 'memory';
  private readonly counters = new Map<string, number>();
  private readonly keys = new Map<string, StoredKey>();
  private readonly revoked: string[] = [];

  async hit(subject: string, window: QuotaWindow, options?: HitOptions): Promise<number> {
    const key = `${subject}|${window.startSeconds}`;
    const calls = (this.counters.get(key) ?? 0) + (options?.calls ?? 1);
    this.counters.set(key, calls);
    return calls;
  }

  async peek(subject: string, window: QuotaWindow): Promise<number> {
    return this.counters.get(`${subject}|${window.startSeconds}`) ?? 0;
  }

  async findKey(hash: string): Promise<StoredKey | undefined> {
    return this.keys.get(hash);
  }

  async addKey(hash: string, key: NewKey): Promise<StoredKey> {
    const stored = { id: this.keys.size + 1, ...key, restrictions: key.restrictions ?? null, revokedAt: null };
    this.keys.set(hash, stored);
    return stored;
  }

  async getKey(id: number): Promise<StoredKey | undefined> {
    return [...this.keys.values()].find((k) => k.id === id);
  }

  async listKeys(): Promise<StoredKey[]> {
    return [...this.keys.values()];
  }

  async revokeKey(id: number, revokedAt: string): Promise<StoredKey | undefined> {
    const key = await this.getKey(id);
    if (key && key.revokedAt === null) {
      key.revokedAt = revokedAt;
      this.revoked.push([...this.keys].find(([, stored]) => stored === key)![0]);
    }
    return key;
  }

  async revocations(after: number): Promise<{ hashes: string[]; next: number }> {
    return { hashes: this.revoked.slice(after), next: this.revoked.length };
  }

  async keyHashes(after: number): Promise<{ hashes: string[]; next: number }> {
    const created = [...this.keys].filter(([, key]) => key.id > after);
    return { hashes: created.map(([hash]) => hash), next: Math.max(after, ...created.map(([, key]) => key.id)) };
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
