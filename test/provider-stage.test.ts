import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ProviderStage } from '../pipeline/store/provider-stage.ts';
import { createSchema } from '../pipeline/store/schema.ts';
import type { ProviderRow } from '../pipeline/layouts/providers.ts';
import { seeded } from './helpers/seeded.ts';

function stageOf(): { db: Database.Database; stage: ProviderStage } {
  const db = new Database(':memory:');
  db.exec("ATTACH DATABASE ':memory:' AS stage");
  createSchema(db);
  return { db, stage: new ProviderStage(db) };
}

function provider(npi: number, taxonomy: string | null): ProviderRow {
  return {
    npi: String(npi),
    firstName: 'Ana',
    lastName: 'Ruiz',
    credential: 'MD',
    gender: 'F',
    address: '1 Main St',
    city: 'Helena',
    state: 'MT',
    zip: '59601',
    phone: '',
    taxonomy,
  };
}

describe('ProviderStage supply counts', () => {
  it('counts kept providers per (ZCTA, taxonomy) as a Map of the pairs would', () => {
    const { stage } = stageOf();
    const random = seeded(11);
    // Five-digit ZCTAs, none, and names that are not five digits; a few hundred taxonomy codes, then more
    // codes than the packed pair holds (2^14), so every path of the pair numbering runs.
    const zctas = ['00501', '59601', '99929', null, '', 'ABCDE', '1234'];
    const codes = Array.from({ length: 300 }, (_, i) => `${String(i).padStart(9, '0')}X`);
    const rows: Array<{ npi: number; zcta: string | null; taxonomy: string | null }> = [];
    for (let i = 0; i < 40_000; i++) {
      const taxonomy = i % 997 === 0 ? null : i > 5_000 ? `T${String(i).padStart(8, '0')}X` : codes[Math.floor(random() * codes.length)];
      // Some NPIs come again later: the later row replaces the earlier one, whose pair is counted down.
      const npi = 1_000_000_000 + (i % 7 === 3 ? Math.floor(random() * i) : i);
      rows.push({ npi, zcta: zctas[Math.floor(random() * zctas.length)], taxonomy });
    }
    const latest = new Map<number, number>();
    const expected = new Map<string, { zcta: string; taxonomy: string; count: number }>();
    rows.forEach((row, i) => {
      const key = `${row.zcta ?? ''}|${row.taxonomy ?? ''}`;
      if (!expected.has(key)) expected.set(key, { zcta: row.zcta ?? '', taxonomy: row.taxonomy ?? '', count: 0 });
      const earlier = latest.get(row.npi);
      if (earlier !== undefined) {
        const before = rows[earlier];
        expected.get(`${before.zcta ?? ''}|${before.taxonomy ?? ''}`)!.count--;
      }
      latest.set(row.npi, i);
      expected.get(key)!.count++;
      stage.addProvider(provider(row.npi, row.taxonomy), i + 2, 'nppes', row.zcta, '');
    });
    const superseded = stage.finish();
    expect(superseded.length).toBe(rows.length - latest.size);
    // Pairs whose every row was replaced are left out; the order is not part of the contract.
    const byPair = (a: { zcta: string; taxonomy: string }, b: { zcta: string; taxonomy: string }) =>
      a.zcta.localeCompare(b.zcta) || a.taxonomy.localeCompare(b.taxonomy);
    const counted = stage.supplyCounts();
    expect(counted.every((pair) => pair.count > 0)).toBe(true);
    expect([...counted].sort(byPair)).toEqual([...expected.values()].filter((pair) => pair.count > 0).sort(byPair));
  });

  it('refuses to answer before finish, when superseded rows would still be counted', () => {
    const { stage } = stageOf();
    stage.addProvider(provider(1234567890, '207Q00000X'), 2, 'nppes', '59601', '');
    expect(() => stage.supplyCounts()).toThrow(/before finish/);
    stage.finish();
    expect(stage.supplyCounts()).toEqual([{ zcta: '59601', taxonomy: '207Q00000X', count: 1 }]);
  });
});
