import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../src/http/bounded-map.ts';
import { seeded } from './helpers/seeded.ts';

describe('BoundedMap', () => {
  const [a, b, c, d] = ['/api/v1/states/', '/api/v1/states/?page=2', '/api/v1/health-scores/10001/', 'key:12'];

  it('finds, replaces and deletes each key on its own, and counts what it holds', () => {
    const map = new BoundedMap<string>(10_000, () => 10);
    map.set(a, 'A');
    map.set(b, 'B');
    expect([map.get(a), map.get(b)]).toEqual(['A', 'B']);
    map.set(a, 'A2');
    expect([map.get(a), map.get(b), map.size.entries]).toEqual(['A2', 'B', 2]);
    map.delete(a);
    expect([map.get(a), map.get(b), map.size]).toEqual([undefined, 'B', { entries: 1, bytes: 10 }]);
    map.set(a, 'A3');
    map.delete(b);
    expect([map.get(a), map.get(b), map.size.entries]).toEqual(['A3', undefined, 1]);
    expect(map.entries()).toEqual([[a, 'A3']]);
  });

  it('evicts the least recently used, and never the key just stored', () => {
    const map = new BoundedMap<number>(30, () => 10);
    map.set(a, 1);
    map.set(b, 2);
    map.set('x', 3);
    map.get(a); // used: gets a second chance
    map.set('y', 4); // over budget: b (unused, oldest after a's pass) goes
    expect([map.get(a), map.get(b), map.get('x'), map.get('y')]).toEqual([1, undefined, 3, 4]);
    expect(map.size).toEqual({ entries: 3, bytes: 30 });
    const big = new BoundedMap<number>(10, () => 10);
    big.set(c, 1);
    big.set(d, 2);
    expect([big.get(c), big.get(d), big.size.entries]).toEqual([undefined, 2, 1]);
  });

  it('holds its budget and its accounting through random operations', () => {
    const random = seeded(7);
    const keys = [a, b, c, d, ...Array.from({ length: 40 }, (_, i) => `/api/v1/health-scores/${10000 + i}/`)];
    const cost = (key: string, value: number) => key.length + value;
    const map = new BoundedMap<number>(400, cost);
    const grown = new Map<string, number>();
    for (let step = 0; step < 5_000; step++) {
      const key = keys[Math.floor(random() * keys.length)];
      const roll = random();
      if (roll < 0.5) {
        map.set(key, Math.floor(random() * 50));
        grown.delete(key);
      } else if (roll < 0.7) map.get(key);
      else if (roll < 0.85) map.delete(key);
      else {
        const value = map.get(key);
        if (value !== undefined) {
          map.grow(key, value, 3);
          grown.set(key, (grown.get(key) ?? 0) + 3);
        }
      }
      const entries = map.entries();
      const bytes = entries.reduce((sum, [k, v]) => sum + cost(k, v) + (grown.get(k) ?? 0), 0);
      expect(map.size).toEqual({ entries: entries.length, bytes });
      expect(bytes).toBeLessThanOrEqual(400);
      expect(new Set(entries.map(([k]) => k)).size).toBe(entries.length);
      for (const [k, v] of entries) expect(map.get(k)).toBe(v);
    }
  });
});
