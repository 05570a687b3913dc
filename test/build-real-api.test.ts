import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createGunzip } from 'node:zlib';
import Database from 'better-sqlite3';
import { parse } from 'csv-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAYOUTS } from '../pipeline/layouts/index.ts';
import { loadManifest, type SourceSpec } from '../pipeline/config/manifest.ts';
import { CENSUS_GROUPS } from '../src/answers/census.ts';
import { Api } from '../src/api/index.ts';
import { cachedBuild } from './helpers/real-build.ts';

const MANIFEST = path.resolve(import.meta.dirname, '../raw/manifests/public.json');

/** The census field (group and name) that shows each canonical measure. */
const FIELD_OF = new Map(
  Object.entries(CENSUS_GROUPS).flatMap(([group, fields]) =>
    Object.entries(fields).map(([field, measure]) => [measure as string, { group, field }]),
  ),
);

/** Values public files use for "no value" (as pipeline/layouts/values.ts reads them), and Census sentinels. */
function rawNumber(text: string | undefined): number | null {
  if (text === undefined || ['', 'na', 'n/a', 'null', 'none', 'not available', '-', '.', 'nan'].includes(text.trim().toLowerCase()))
    return null;
  const value = Number(text.trim().replace(/[,$%]/g, ''));
  return value <= -99_999_999 ? null : value;
}

/** The rows of a raw CSV (gzipped or not) whose ZCTA column holds one of `zips`, read independently of the pipeline's reader. */
async function rawRows(source: SourceSpec, zips: ReadonlySet<string>): Promise<Map<string, Record<string, string>>> {
  const rows = new Map<string, Record<string, string>>();
  const input = createReadStream(source.path);
  const parser = (source.path.endsWith('.gz') ? input.pipe(createGunzip()) : input).pipe(parse({ columns: true, bom: true }));
  for await (const row of parser as AsyncIterable<Record<string, string>>) {
    const zcta = row[source.columns.zcta]
      .trim()
      .replace(/^(860US|G)/, '')
      .padStart(5, '0');
    if (zips.has(zcta)) rows.set(zcta, row);
  }
  return rows;
}

describe('the API over the real-data build', () => {
  let api: Api;
  let db: Database.Database;

  beforeAll(async () => {
    const { out } = await cachedBuild(MANIFEST);
    db = new Database(out, { readonly: true });
    // A small response cache: every ZCTA is asked for once, so caching would only hold memory.
    api = Api.open(out, { cacheBytes: 1024 * 1024 });
  }, 900_000);
  afterAll(() => {
    api?.retire();
    db?.close();
  });

  it('answers PO-box and single-address ZIP codes with the record of the ZIP code the crosswalk puts them in (issue 28)', async () => {
    const get = async (url: string) => {
      const response = await api.respond({ method: 'GET', url: `/api/v1/${url}` });
      return { status: response.status, body: JSON.parse(response.body.toString('utf8')) };
    };
    // raw/public/crosswalks/uds_zip_zcta_2021.csv.gz: 10008 -> 10007, 20500 -> 20006, 00501 -> 11742.
    for (const [asked, area] of [
      ['10008', '10007'],
      ['20500', '20006'],
      ['00501', '11742'],
    ]) {
      const [alias, own] = await Promise.all([get(`health-scores/${asked}/`), get(`health-scores/${area}/`)]);
      expect(alias.status, asked).toBe(200);
      expect(alias.body).toEqual({
        ...own.body,
        zip_lookup: {
          requested: asked,
          answered: area,
          zip_type: 'Post Office or large volume customer',
          note: `ZIP code ${asked} (Post Office or large volume customer) has no area of its own: this is the record of ZIP code ${area}, the area it lies in`,
        },
      });
    }
    expect(db.prepare('SELECT COUNT(*) AS n FROM zip_aliases').get()).toMatchObject({ n: expect.any(Number) });
    expect((db.prepare('SELECT COUNT(*) AS n FROM zip_aliases z JOIN zips s ON s.zip_code = z.zip_code').get() as { n: number }).n).toBe(0);
  });

  it('says in every score record and widget answer where its clinicians come from, and where none are counted', async () => {
    const get = async (url: string) => JSON.parse((await api.respond({ method: 'GET', url: `/api/v1/${url}` })).body.toString('utf8'));
    const record = await get('health-scores/10021/');
    expect(record.provider_score).toBeGreaterThanOrEqual(70);
    // Counted primary care, behavioral health and dentistry, the OB/GYN roster, and estimated paediatrics and cardiology.
    expect(record.data_quality.components.provider).toBe('estimated');
    expect(
      Object.fromEntries(record.data_quality.clinicians.map((c: { category: string; basis: string }) => [c.category, c.basis])),
    ).toEqual({
      primary_care: 'count',
      behavioral_health: 'count',
      dentistry: 'count',
      obgyn: 'roster',
      pediatrics: 'estimate',
      cardiology: 'estimate',
    });
    expect(record.data_quality.travel_times).toBe('road');
    const widget = await get('widget-score/10021/');
    expect(widget.components.provider).toBe(record.provider_score);
    expect(widget.within_10_miles.primary_care_clinicians).toBeGreaterThan(1_000);
    expect(widget.data_quality).toEqual(record.data_quality);
    const page = await get('health-scores/?state=NV&page_size=100');
    expect(page.results.every((r: { provider_score: number | null }) => r.provider_score !== null)).toBe(true);
    // Puerto Rico: no county count, the OB/GYN roster alone: no provider component, and the record says why.
    const adjuntas = await get('health-scores/00601/');
    expect(adjuntas.provider_score).toBeNull();
    expect(adjuntas.data_quality.components.provider).toBe('missing');
    expect(adjuntas.data_quality.note).toMatch(/No source counts the clinicians of this ZIP/);
    // A ZIP without residents says so, and is never in a ranking.
    const empty = db.prepare('SELECT zip_code FROM zips WHERE COALESCE(population, 0) = 0 LIMIT 1').pluck().get() as string;
    expect((await get(`health-scores/${empty}/`)).data_quality.small_population).toBe(true);
    const top = await get('tvi/top-vulnerable/?page_size=100');
    const ranked = new Set(db.prepare('SELECT zip_code FROM tvi WHERE ranked = 1').pluck().all() as string[]);
    expect(top.results.every((r: { zip_code: string }) => ranked.has(r.zip_code))).toBe(true);
    const rankings = await get('tvi/rankings/');
    expect(rankings.zip_codes.length).toBeGreaterThan(0);
    expect(rankings.zip_codes.every((r: { zip_code: string }) => ranked.has(r.zip_code))).toBe(true);
  });

  it('serves the TVI and census of every ZCTA, with NULL census values as null (never 0)', async () => {
    const zips = (db.prepare('SELECT zip_code FROM zips ORDER BY zip_code').all() as Array<{ zip_code: string }>).map((r) => r.zip_code);
    expect(zips.length).toBe(33_791);
    const tvi = new Map((db.prepare('SELECT * FROM tvi').all() as Array<Record<string, unknown>>).map((r) => [r.zip_code as string, r]));
    const census = new Map<string, number | null>();
    for (const r of db.prepare('SELECT zip_code, measure, value FROM census').iterate() as IterableIterator<{
      zip_code: string;
      measure: string;
      value: number | null;
    }>) {
      census.set(`${r.zip_code} ${r.measure}`, r.value);
    }
    const problems: string[] = [];
    let nulls = 0;
    for (const zip of zips) {
      const tviResponse = await api.respond({ method: 'GET', url: `/api/v1/tvi/${zip}/` });
      if (tviResponse.status !== 200) problems.push(`tvi/${zip}/ answered ${tviResponse.status}`);
      else {
        const body = JSON.parse(tviResponse.body.toString('utf8'));
        const row = tvi.get(zip)!;
        for (const key of [
          'tvi_score',
          'tvi_tier',
          'vehicle_score',
          'health_outcome_score',
          'zero_vehicle_pct',
          'nearest_hospital_miles',
          'population',
        ]) {
          if (body[key] !== row[key]) problems.push(`tvi/${zip}/ ${key}: ${body[key]} but the table has ${row[key]}`);
        }
      }
      const censusResponse = await api.respond({ method: 'GET', url: `/api/v1/health-scores/${zip}/census/` });
      if (censusResponse.status !== 200) {
        problems.push(`census of ${zip} answered ${censusResponse.status}`);
        continue;
      }
      const body = JSON.parse(censusResponse.body.toString('utf8'));
      for (const [measure, { group, field }] of FIELD_OF) {
        const stored = census.get(`${zip} ${measure}`) ?? null;
        if (stored === null) nulls++;
        if (body[group][field] !== stored) problems.push(`census of ${zip} ${field}: ${body[group][field]} but the table has ${stored}`);
      }
    }
    expect(problems.slice(0, 5)).toEqual([]);
    // Suppressed and unsupplied values exist in the real data (owner_occupied_pct and median_home_value have no source at all).
    expect(nulls).toBeGreaterThan(2 * 33_791);
  }, 120_000);

  it('traces census values of sample ZIPs to the raw file column the manifest maps, honouring source precedence', async () => {
    const manifest = loadManifest(MANIFEST, new Set(LAYOUTS.keys()));
    const acs = manifest.sources.filter((s) => s.layout === 'acs_zcta');
    const suppressed = (
      db
        .prepare("SELECT zip_code FROM census WHERE measure = 'median_household_income' AND value IS NULL ORDER BY zip_code LIMIT 3")
        .all() as Array<{ zip_code: string }>
    ).map((r) => r.zip_code);
    const chosen = ['10001', '02801', '60614', '99723', '00601', '59001', '94110', '57574'].filter((zip) =>
      db.prepare('SELECT 1 FROM zips WHERE zip_code = ?').get(zip),
    );
    const sample = new Set([...chosen, ...suppressed]);
    expect(sample.size).toBeGreaterThanOrEqual(8);
    const raw = new Map(await Promise.all(acs.map(async (source) => [source.key, await rawRows(source, sample)] as const)));
    let traced = 0;
    for (const zip of sample) {
      const response = await api.respond({ method: 'GET', url: `/api/v1/health-scores/${zip}/census/` });
      expect(response.status, zip).toBe(200);
      const body = JSON.parse(response.body.toString('utf8'));
      for (const [measure, { group, field }] of FIELD_OF) {
        // The value the build should have kept: the first source in manifest order whose raw row has one.
        let expected: { value: number; source: string } | undefined;
        for (const source of acs) {
          const column = source.columns[measure];
          if (!column || expected) continue;
          const value = rawNumber(raw.get(source.key)!.get(zip)?.[column]);
          const complement = ((source.options.complement as string[] | undefined) ?? []).includes(measure);
          if (value !== null) expected = { value: complement ? Math.round((100 - value) * 1e4) / 1e4 : value, source: source.key };
        }
        expect(body[group][field], `${zip} ${field}`).toBe(expected?.value ?? null);
        if (expected) {
          traced++;
          expect(
            body[group].sources.map((s: { key: string }) => s.key),
            `${zip} ${group}`,
          ).toContain(expected.source);
          const stored = db.prepare('SELECT source FROM census WHERE zip_code = ? AND measure = ?').get(zip, measure) as { source: string };
          expect(stored.source, `${zip} ${measure}`).toBe(expected.source);
        }
      }
    }
    expect(traced).toBeGreaterThan(100);
    const vintages = new Map(manifest.sources.map((s) => [s.key, s.vintage]));
    const manhattan = JSON.parse((await api.respond({ method: 'GET', url: '/api/v1/health-scores/10001/census/' })).body.toString('utf8'));
    for (const group of Object.keys(CENSUS_GROUPS)) {
      for (const source of manhattan[group].sources) expect(source.vintage).toBe(vintages.get(source.key));
    }
  }, 120_000);

  it('publishes the methodology posts, and the widget links to one that exists', async () => {
    const blog = JSON.parse((await api.respond({ method: 'GET', url: '/api/v1/blog/' })).body.toString('utf8'));
    expect(blog.count).toBeGreaterThanOrEqual(3);
    const widget = JSON.parse((await api.respond({ method: 'GET', url: '/api/v1/widget-score/10001/' })).body.toString('utf8'));
    expect((await api.respond({ method: 'GET', url: widget.attribution.url })).status).toBe(200);
    expect(widget.nearest_hospital).not.toBeNull();
  });
});
