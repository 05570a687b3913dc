import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { specialtyKey } from '../core/search-key.ts';
import { categoriesOfTaxonomy } from '../pipeline/config/specialties.ts';
import { SPECIALTY_ALIASES, specialtyNames } from '../pipeline/emit/specialty-keys.ts';
import type { TaxonomyRow } from '../pipeline/layouts/providers.ts';

/**
 * The words `specialty=` accepts for each code of the real NUCC code set (v25.1, raw/public/nucc): NUCC uses
 * some alias words as a specialization of other professions too, and an analyst asking for `neurology` means
 * neurologists, not Neurology chiropractors.
 */
const NUCC = path.resolve(import.meta.dirname, '../raw/public/nucc/nucc_taxonomy_251.csv.gz');
const rows = (parse(gunzipSync(readFileSync(NUCC)), { columns: true, bom: true }) as Record<string, string>[]).map(
  (r): TaxonomyRow => ({
    code: r.Code,
    grouping: r.Grouping,
    classification: r.Classification,
    specialization: r.Specialization,
    displayName: r['Display Name'],
  }),
);
const taxonomy = new Map(rows.map((row) => [row.code, row]));
const keysOf = (code: string) => specialtyNames(code, '', taxonomy).map((name) => name.key);

describe('specialty words of the real NUCC code set', () => {
  it('reads the whole code set', () => {
    expect(rows.length).toBeGreaterThan(850);
  });

  it('a code answers to an alias only when the alias counts it, or when the alias is its classification', () => {
    const strays: string[] = [];
    for (const row of rows) {
      for (const key of keysOf(row.code)) {
        if (!Object.hasOwn(SPECIALTY_ALIASES, key)) continue;
        const counted = categoriesOfTaxonomy(row.code).includes(SPECIALTY_ALIASES[key]);
        if (!counted && specialtyKey(row.classification) !== key) strays.push(`${row.code} ${row.displayName}: ${key}`);
      }
    }
    expect(strays).toEqual([]);
  });

  it('other professions sharing an alias word are found by their display names, not by the word', () => {
    for (const [code, word, displayName] of [
      ['111NN0400X', 'neurology', 'neurology chiropractor'],
      ['2251N0400X', 'neurology', 'neurology physical therapist'],
      ['1835C0206X', 'cardiology', 'cardiology pharmacist'],
      ['163WX0200X', 'oncology', 'oncology registered nurse'],
      ['163WP0200X', 'pediatrics', 'pediatric registered nurse'],
      ['213ER0200X', 'radiology', 'radiology podiatrist'],
      ['2251G0304X', 'geriatrics', 'geriatric physical therapist'],
    ]) {
      expect(keysOf(code), code).not.toContain(word);
      expect(keysOf(code), code).toContain(displayName);
    }
  });

  it('the physicians the words name keep them: by alias, by specialization, or by classification', () => {
    for (const [code, word] of [
      ['2084N0400X', 'neurology'],
      ['2084P0800X', 'psychiatry'],
      ['207RC0000X', 'cardiology'],
      ['207RN0300X', 'nephrology'],
      ['208000000X', 'pediatrics'],
      ['2080P0202X', 'pediatrics'],
      ['2085N0700X', 'radiology'],
      ['2088P0231X', 'urology'],
      ['363LP2300X', 'primary care'],
    ])
      expect(keysOf(code), code).toContain(word);
  });
});
