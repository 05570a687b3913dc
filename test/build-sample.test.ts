import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { build } from '../pipeline/run/index.ts';
import { writeSample } from '../producers/sample/index.ts';
import { TAXONOMY_BY_CODE } from '../producers/sample/nucc.ts';
import { WIDGET_SCRIPT_FILE } from '../core/widget.ts';
import { tempDir } from './helpers/files.ts';
import { cachedOutput } from './helpers/real-build.ts';

const MANIFEST = path.resolve(import.meta.dirname, '../raw/manifests/synthetic.json');

describe('hcas sample --synthetic-nation && hcas build --manifest raw/manifests/synthetic.json (a small synthetic nation)', () => {
  let db: Database.Database;
  let rejects: string[];
  let sample: Awaited<ReturnType<typeof writeSample>>;
  let outDir: string;

  beforeAll(async () => {
    // Made once per code and data (the sample is written by the code the cache key hashes).
    const made = await cachedOutput('a synthetic nation: 100,000 providers, 3,000 facilities, seed 7', async (dir) => {
      const raw = path.join(tempDir(), 'raw');
      const written = await writeSample({ outDir: raw, providers: 100_000, facilities: 3_000, seed: 7 });
      // writeSample declares its 100,000 providers a 2.5% sample of the 4 million of its nation (synthetic-providers.json).
      await build({ manifest: MANIFEST, root: raw, out: path.join(dir, 'hcas.sqlite') });
      writeFileSync(path.join(dir, 'sample.json'), JSON.stringify(written));
    });
    outDir = path.dirname(made.out);
    sample = JSON.parse(readFileSync(path.join(outDir, 'sample.json'), 'utf8'));
    db = new Database(made.out, { readonly: true });
    rejects = readFileSync(made.rejectsFile, 'utf8').trim().split('\n');
  }, 900_000);

  it('scores every ZCTA and says plainly that the data is synthetic', () => {
    expect((db.prepare('SELECT COUNT(*) AS n FROM zips').get() as { n: number }).n).toBe(33_791);
    const dataset = JSON.parse((db.prepare("SELECT value FROM meta WHERE key = 'dataset'").get() as { value: string }).value);
    expect(dataset.synthetic).toBe(true);
    expect(dataset.notice).toMatch(/SYNTHETIC/);
  });

  it('rejects each deliberately broken NPPES row, by its line, with its reason', () => {
    expect(sample.brokenRows.length).toBeGreaterThanOrEqual(1);
    for (const broken of sample.brokenRows) {
      const line = broken.row + 1; // rows are numbered after the header line
      const hit = rejects.find((r) => r.startsWith(`nppes,`) && r.split(',')[2] === String(line));
      expect(hit, `${broken.reason} at line ${line}`).toMatch(/,invalid,/);
    }
  });

  it('writes the embed script beside the database, for static hosting', () => {
    expect(readFileSync(path.join(outDir, 'widget/v1/widget.js'), 'utf8')).toBe(readFileSync(WIDGET_SCRIPT_FILE, 'utf8'));
  });

  it('lands every individual provider (the broken rows come on top of them)', () => {
    const providers = (db.prepare('SELECT COUNT(*) AS n FROM providers').get() as { n: number }).n;
    expect(providers).toBe(sample.providers);
  });

  it('names each specialty one way: a provider with a NUCC code shows its display name, never a bare specialization', () => {
    const shown = db
      .prepare(
        'SELECT primary_taxonomy AS code, primary_specialty AS specialty, COUNT(*) AS n FROM providers WHERE primary_taxonomy IS NOT NULL GROUP BY 1, 2',
      )
      .all() as Array<{ code: string; specialty: string; n: number }>;
    expect(shown.length).toBeGreaterThan(10);
    for (const { code, specialty } of shown) {
      const row = TAXONOMY_BY_CODE.get(code);
      if (row) expect(specialty, code).toBe(row.displayName);
    }
    const names = new Set(shown.map((s) => s.specialty));
    // "Family" is the specialization of nurse practitioners and psychologists alike; "Family Medicine" a classification.
    expect(names.has('Family')).toBe(false);
    expect(names.has('Family Medicine')).toBe(false);
    expect(names.has('Family Nurse Practitioner') || names.has('Family Medicine Physician')).toBe(true);
  });

  it('places specialists in cities: urban ZIPs score higher on providers than rural ones', () => {
    const byClass = db
      .prepare(`SELECT z.urban_rural_code AS code, AVG(h.provider_score) AS provider FROM zips z
      JOIN health_scores h ON h.zip_code = z.zip_code AND h.score_type_id = 1 WHERE z.urban_rural_code IS NOT NULL GROUP BY 1 ORDER BY 1`)
      .all() as Array<{ code: number; provider: number }>;
    expect(byClass[0].provider).toBeGreaterThan(byClass.at(-1)!.provider);
  });
});
