import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { build } from '../pipeline/run/index.ts';
import { type DiffReport, diffBuilds } from '../src/diff/index.ts';
import { cachedBuild, cachedOutput } from './helpers/real-build.ts';
import { buildVariant, PUBLIC_MANIFEST, withoutRows, withValue } from './helpers/variant-build.ts';
import { hcas as runHcas } from './helpers/cli.ts';

/** Runs `hcas ARGS` (in this process). */
const hcas = (...args: string[]) => runHcas(args);

/** Every cause id any changed ZIP lists, first or not, over every changed ZIP (the report asked for all of them). */
const allCauseIds = (report: DiffReport) => new Set(report.why.zips.flatMap((z) => z.causes.map((c) => c.id)));

/**
 * The public build twice, from inputs that differ in one known way each, and the diff must name that input
 * as the first cause of every ZIP it moved, and nothing else; identical inputs give an empty diff.
 */
describe('hcas diff names the known cause of a rebuild', { timeout: 600_000 }, () => {
  let base: string;
  beforeAll(async () => {
    base = (await cachedBuild(PUBLIC_MANIFEST)).out;
  }, 600_000);

  it('identical inputs give an empty diff and exit status 0', async () => {
    // A second build of its own, from the same inputs: kept like the first (once per code and data, so the
    // two were always made by separate runs of the same code), where it was made again in every run.
    const { out: again } = await cachedOutput('the public build, made a second time from the same inputs', (into) =>
      build({ manifest: PUBLIC_MANIFEST, out: path.join(into, 'hcas.sqlite') }).then(() => {}),
    );
    const report = diffBuilds(base, again, { top: Number.POSITIVE_INFINITY, minResidents: 0 });
    expect(report.builds).toMatchObject({ same_build_id: true, sources: [], settings: [], row_counts: [], not_compared: [] });
    expect(report.scores.zips).toMatchObject({ compared: 33_791, changed: 0, moved: 0, only_old: 0, only_new: 0 });
    expect(report.scores.band_moves).toEqual([]);
    expect(report.why.causes).toEqual([]);
    expect(report.why.zips).toEqual([]);
    expect(report.why.facilities).toMatchObject({ added: 0, removed: 0, changed: 0, list: [] });
    expect(report.status).toEqual({ agree: true, thresholds: { max_shift: 0, max_band_moves: 0 }, exceeded: [] });
    const run = await hcas('diff', base, again);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Same build id: the same inputs, settings and code.');
    expect(run.stdout).toContain('No ZIP changed: nothing to explain.');
  });

  it('a hospital removed from the CMS file: that hospital, for every ZIP it moved', async () => {
    // Holy Cross Hospital, Taos NM (CCN 321310): a critical access hospital with an emergency department.
    const out = await buildVariant('cms_hospitals', (csv) => withoutRows(csv, (row) => row.startsWith('321310,')));
    const report = diffBuilds(base, out, { top: Number.POSITIVE_INFINITY, minResidents: 0 });
    expect(report.builds.sources.find((s) => s.key === 'cms_hospitals')).toMatchObject({
      change: 'changed',
      old: { rows_landed: 5421 },
      new: { rows_landed: 5420 },
    });
    expect(report.why.facilities).toMatchObject({ added: 0, removed: 1, changed: 0 });
    expect(report.why.facilities!.list[0]).toMatchObject({ change: 'removed', key: 'ccn:321310', scored: true });
    expect(report.scores.zips.changed).toBeGreaterThan(10);
    expect(report.why.zips).toHaveLength(report.scores.zips.changed);
    for (const zip of report.why.zips) expect(zip.causes[0].id, zip.zip).toBe('facility:ccn:321310');
    expect(allCauseIds(report)).toEqual(new Set(['facility:ccn:321310']));
    expect(report.why.causes).toHaveLength(1);
    expect(report.why.causes[0]).toMatchObject({ kind: 'facility', inputs: 1, first_for_zips: report.scores.zips.changed });
    expect(report.why.causes[0].examples[0]).toMatch(/^hospital removed: Holy Cross Hospital .*Taos, NM \(CCN 321310\)$/);
    // The ZIPs whose nearest hospital it was say so, with the miles before and after.
    const taos = report.why.zips.find((z) => z.zip === '87557')!;
    expect(taos.facts.find((f) => f.fact === 'nearest_hospital')).toMatchObject({ old: expect.stringMatching(/^Holy Cross Hospital/) });
    expect(taos.deltas.hospital).toBeLessThan(0);
  });

  it("a ZIP's population changed: that ZIP, for itself and every neighbour whose share of the beds or of its county's clinicians moved", async () => {
    const out = await buildVariant('acs_population_income', (csv) =>
      withValue(csv, (row) => row.startsWith('87571,'), 'total_population', '40000'),
    );
    const report = diffBuilds(base, out, { top: Number.POSITIVE_INFINITY, minResidents: 0 });
    expect(report.builds.sources.map((s) => s.key)).toEqual(['acs_population_income']);
    expect(report.why.facilities).toMatchObject({ added: 0, removed: 0, changed: 0 });
    expect(report.scores.zips.changed).toBeGreaterThan(5);
    // Near Taos, what residents weigh moved (the share of beds, and Taos County's counted clinicians placed by
    // residents): the diff names the ZIP. Far away, the estimated specialists moved by a hair (a category's national
    // count is its density over the build's residents, 27,456 more of them): the diff names the file, and no score
    // moved by more than a point.
    const db = new Database(base, { readonly: true });
    const taos = db.prepare("SELECT latitude, longitude FROM zips WHERE zip_code = '87571'").get() as {
      latitude: number;
      longitude: number;
    };
    const point = db.prepare('SELECT latitude, longitude FROM zips WHERE zip_code = ?');
    const milesFromTaos = (zip: string) => {
      const p = point.get(zip) as { latitude: number; longitude: number };
      return 69 * Math.hypot(p.latitude - taos.latitude, (p.longitude - taos.longitude) * Math.cos((taos.latitude * Math.PI) / 180));
    };
    const named = report.why.zips.filter((z) => z.causes[0].id === 'population:87571');
    const byFile = report.why.zips.filter((z) => z.causes[0].id !== 'population:87571');
    expect(named.map((z) => z.zip)).toContain('87571');
    for (const zip of named) expect(milesFromTaos(zip.zip), zip.zip).toBeLessThan(200);
    for (const zip of byFile) {
      expect(zip.causes[0].id, zip.zip).toBe('source:acs_population_income');
      expect(Math.abs(zip.shift!), zip.zip).toBeLessThanOrEqual(1);
    }
    db.close();
    expect(report.why.causes[0]).toEqual(
      expect.objectContaining({
        kind: 'population',
        inputs: 1,
        examples: ['residents of 87571 (Taos, NM) changed: 12,544 → 40,000 (acs_population_income)'],
        first_for_zips: named.length,
      }),
    );
    // No ZIP's people component moved.
    for (const zip of report.why.zips) expect(zip.deltas.people, zip.zip).toBe(0);
  });
});
