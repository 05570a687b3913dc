import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { cachedBuild } from './helpers/real-build.ts';
import { markdown } from '../src/cli/commands/validate.ts';

const VALIDATION_DOC = path.resolve(import.meta.dirname, '../docs/VALIDATION.md');

/**
 * The scores against the world, on the real-data build: every rule of the issue "Scores that match the
 * world", measured here from the database tables with SQL and arithmetic of this file (not with the
 * pipeline's own validation code, whose report is checked at the end).
 */
const MANIFEST = path.resolve(import.meta.dirname, '../raw/manifests/public.json');
const BUNDLE = path.resolve(import.meta.dirname, '../raw/public');

/** A bundled CSV file's rows, by header name. */
function bundled(file: string): Array<Record<string, string>> {
  return parse(gunzipSync(readFileSync(path.join(BUNDLE, file))), { columns: true, bom: true }) as Array<Record<string, string>>;
}

/** Great-circle miles, written out here (Earth radius 3,958.8 miles). */
function miles(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const a =
    Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * 3958.8 * Math.asin(Math.sqrt(a));
}

interface Row {
  zip_code: string;
  state: string;
  city: string;
  population: number;
  small_population: number;
  urban_rural_code: number | null;
  healthscore: number;
  people_score: number;
  provider_score: number | null;
  hospital_score: number;
  travel_score: number;
  label: string;
  reference_hospital_minutes: number | null;
}

/** Spearman's rho with average ranks for ties, written out here. */
function spearman(x: number[], y: number[]): number {
  const ranks = (v: number[]) => {
    const order = v.map((value, i) => [value, i]).sort((a, b) => a[0] - b[0]);
    const r = new Array<number>(v.length);
    for (let i = 0; i < order.length; ) {
      let j = i;
      while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
      for (let k = i; k <= j; k++) r[order[k][1]] = (i + j) / 2;
      i = j + 1;
    }
    return r;
  };
  const [rx, ry] = [ranks(x), ranks(y)];
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const [mx, my] = [mean(rx), mean(ry)];
  let sxy = 0,
    sxx = 0,
    syy = 0;
  for (let i = 0; i < rx.length; i++) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) ** 2;
    syy += (ry[i] - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}

describe('scores that match the world (real-data build)', () => {
  let db: Database.Database;
  let rows: Row[];
  let byZip: Map<string, Row>;
  const meta = (key: string) => JSON.parse(db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string);

  beforeAll(async () => {
    const { out } = await cachedBuild(MANIFEST);
    db = new Database(out, { readonly: true });
    rows = db
      .prepare(`SELECT z.zip_code, z.state, z.city, COALESCE(z.population, 0) AS population, z.small_population, z.urban_rural_code,
        h.healthscore, h.people_score, h.provider_score, h.hospital_score, h.travel_score, h.label, r.reference_hospital_minutes
      FROM zips z JOIN health_scores h ON h.zip_code = z.zip_code AND h.score_type_id = 1 JOIN zip_reference r ON r.zip_code = z.zip_code`)
      .all() as Row[];
    byZip = new Map(rows.map((r) => [r.zip_code, r]));
  }, 600_000);

  const ranked = () => rows.filter((r) => !r.small_population);

  it('puts the ZIPs of large academic medical centres in the top two bands', () => {
    // Upper East Side, Longwood, Texas Medical Center, Johns Hopkins, UPMC, Penn: the places the scores were questioned on.
    for (const zip of ['10021', '10065', '02115', '77030', '21205', '15213', '19104'])
      expect(byZip.get(zip)!.healthscore, zip).toBeGreaterThanOrEqual(70);
    // Utqiagvik (a 9-bed hospital, 700 miles from a major one) no longer outranks the Upper East Side.
    expect(byZip.get('99723')!.healthscore).toBeLessThan(byZip.get('10021')!.healthscore - 20);
  });

  it('puts remote frontier ZIPs (an hour and a half or more from a hospital by road) in the bottom two bands', () => {
    const frontier = ranked().filter((r) => r.reference_hospital_minutes !== null && r.reference_hospital_minutes >= 90);
    expect(frontier.length).toBeGreaterThan(100);
    const low = frontier.filter((r) => r.healthscore < 50);
    expect(low.length / frontier.length).toBeGreaterThanOrEqual(0.95);
  });

  it('does not call a town of 25,000 with a hospital a desert (Fallon NV, whose ZCTA point lies 44 miles out)', () => {
    expect(byZip.get('89406')!.population).toBeGreaterThan(20_000);
    expect(byZip.get('89406')!.healthscore).toBeGreaterThanOrEqual(25);
    const fallonHospital = db
      .prepare("SELECT zcta FROM facilities WHERE facility_name LIKE '%Churchill%' AND state_code = 'NV' AND sources LIKE '%cms%'")
      .pluck()
      .get();
    expect(fallonHospital).toBe('89406');
  });

  it('falls strictly from NCHS class 1 to 6, by at least 20 points (population-weighted)', () => {
    const means = [1, 2, 3, 4, 5, 6].map((code) => {
      const members = ranked().filter((r) => r.urban_rural_code === code);
      return members.reduce((s, r) => s + r.population * r.healthscore, 0) / members.reduce((s, r) => s + r.population, 0);
    });
    for (let i = 1; i < 6; i++) expect(means[i], `class ${i + 1}`).toBeLessThan(means[i - 1]);
    expect(means[0] - means[5]).toBeGreaterThanOrEqual(20);
  });

  it('uses every band: each holds at least 0.5% of residents and none more than 60%', () => {
    const total = ranked().reduce((s, r) => s + r.population, 0);
    const shares = new Map<string, number>();
    for (const r of ranked()) shares.set(r.label, (shares.get(r.label) ?? 0) + r.population / total);
    expect([...shares.keys()].sort()).toEqual([
      'Excellent Access',
      'Healthcare Desert',
      'Healthcare Paradise',
      'Limited Access',
      'Moderate Access',
    ]);
    for (const [label, share] of shares) {
      expect(share, label).toBeGreaterThanOrEqual(0.005);
      expect(share, label).toBeLessThanOrEqual(0.6);
    }
  });

  it('lowers the hospital component as the road to a hospital lengthens (OEPS drive minutes, Spearman <= -0.6)', () => {
    const pairs = ranked().filter((r) => r.reference_hospital_minutes !== null);
    expect(
      spearman(
        pairs.map((r) => r.hospital_score),
        pairs.map((r) => r.reference_hospital_minutes!),
      ),
    ).toBeLessThanOrEqual(-0.6);
  });

  it('places every ZIP in the state where most of its residents live', () => {
    expect(['99362', '82801', '82930'].map((zip) => byZip.get(zip)!.state)).toEqual(['WA', 'WY', 'WY']); // Walla Walla, Sheridan, Evanston
    const places = meta('places');
    expect(places.stateFrom.hud_residential).toBeGreaterThan(30_000);
  });

  it('keeps ZIPs without residents out of every ranking and out of state averages', () => {
    const unranked = db
      .prepare('SELECT COUNT(*) FROM tvi t JOIN zips z ON z.zip_code = t.zip_code WHERE t.ranked = 1 AND COALESCE(z.population, 0) < 100')
      .pluck()
      .get();
    expect(unranked).toBe(0);
    expect(db.prepare('SELECT COUNT(*) FROM zips WHERE COALESCE(population, 0) = 0 AND small_population = 0').pluck().get()).toBe(0);
    // State averages are the population-weighted mean of the ranked ZIPs.
    for (const state of ['NY', 'WY', 'AK']) {
      const members = ranked().filter((r) => r.state === state);
      const expected = members.reduce((s, r) => s + r.population * r.healthscore, 0) / members.reduce((s, r) => s + r.population, 0);
      expect(db.prepare('SELECT avg_healthscore_exact FROM states WHERE state_code = ?').pluck().get(state) as number).toBeCloseTo(
        expected,
        6,
      );
    }
  });

  it('keeps one hospital roster: closed hospitals out, Rural Emergency Hospitals as emergency departments, no double-counted beds', () => {
    expect(db.prepare("SELECT COUNT(*) FROM facilities WHERE facility_name LIKE 'Hahnemann%'").pluck().get()).toBe(0);
    const reh = db
      .prepare("SELECT COUNT(*) FROM facilities WHERE facility_type = 'Rural Emergency Hospital' AND emergency_services = 1")
      .pluck()
      .get() as number;
    expect(reh).toBeGreaterThan(20);
    // A CCN is one hospital: no two facility records share one.
    expect(
      db.prepare('SELECT COUNT(*) FROM (SELECT ccn FROM facilities WHERE ccn IS NOT NULL GROUP BY ccn HAVING COUNT(*) > 1)').pluck().get(),
    ).toBe(0);
    const merge = meta('facility_merge');
    expect(merge.roster.cms).toBe(5421);
    expect(merge.excluded.ccn_not_in_current_cms + merge.excluded.closed_status).toBeGreaterThan(500);
  });

  it('treats a missing hospital rating as neutral: the quality part is left out, never scored 0', () => {
    const unrated = db.prepare('SELECT COUNT(*) FROM zip_access WHERE mean_rating_nearby IS NULL').pluck().get() as number;
    expect(unrated).toBeGreaterThan(1000);
    // Where no rated hospital is near, the hospital component is the renormalised mean of beds, emergency and major care:
    // recompute it for a frontier-free sample of such ZIPs from the stored minutes and beds.
    const sample = db
      .prepare(`SELECT a.*, h.hospital_score FROM zip_access a JOIN health_scores h ON h.zip_code = a.zip_code AND h.score_type_id = 1
      WHERE a.mean_rating_nearby IS NULL AND a.beds_per_1000 > 0 LIMIT 200`)
      .all() as Array<Record<string, number>>;
    const linear = (minutes: number, full: number, zero: number) => 100 * Math.min(1, Math.max(0, (minutes - zero) / (full - zero)));
    const logScale = (v: number) => (v <= 0 ? 0 : 100 * Math.min(1, Math.max(0, Math.log(v / 0.3) / Math.log(3 / 0.3))));
    for (const r of sample) {
      const expected =
        (0.3 * logScale(r.beds_per_1000) + 0.4 * linear(r.emergency_minutes, 5, 40) + 0.15 * linear(r.major_hospital_minutes, 15, 90)) /
        0.85;
      // beds_per_1000 and the minutes are stored rounded; a point of slack covers it.
      expect(Math.abs(r.hospital_score - expected), r.zip_code as unknown as string).toBeLessThanOrEqual(1);
    }
  });

  it('offsets going without a car with transit: Manhattan households are not stranded', () => {
    const gap = db.prepare("SELECT mobility_gap_pct FROM zip_access WHERE zip_code = '10021'").pluck().get() as number;
    const noVehicle = db
      .prepare("SELECT value FROM census WHERE zip_code = '10021' AND measure = 'no_vehicle_pct'")
      .pluck()
      .get() as number;
    expect(noVehicle).toBeGreaterThan(50);
    expect(gap).toBe(0);
    expect(byZip.get('10021')!.travel_score).toBeGreaterThanOrEqual(95);
    // Missing transit is never better than none: such ZIPs rank as vulnerable on transit as ZIPs with 0%.
    const none = db
      .prepare(
        `SELECT MIN(t.transit_score) FROM tvi t JOIN census c ON c.zip_code = t.zip_code AND c.measure = 'transit_commute_pct' WHERE c.value = 0 AND t.ranked = 1`,
      )
      .pluck()
      .get() as number;
    const missing = db
      .prepare(
        `SELECT MIN(t.transit_score) FROM tvi t WHERE t.ranked = 1 AND NOT EXISTS (SELECT 1 FROM census c WHERE c.zip_code = t.zip_code AND c.measure = 'transit_commute_pct' AND c.value IS NOT NULL)`,
      )
      .pluck()
      .get() as number | null;
    if (missing !== null) expect(missing).toBe(none);
  });

  it('measures provider coverage and, without provider files, publishes no provider component', () => {
    const coverage = meta('provider_coverage');
    expect(coverage.status).toBe('omitted');
    expect(coverage.national.primary_care.share).toBeLessThan(0.1);
    expect(rows.every((r) => r.provider_score === null)).toBe(true);
  });

  it('adds no prevalence term from a PLACES measure the build does not have', () => {
    const use = meta('data_quality').prevalence_measures as Array<{ score_type_id: number; measure: string | null; available: boolean }>;
    expect(use.filter((u) => u.available).map((u) => u.measure)).toEqual(['CSMOKING']); // the bundle's PLACES has five measures, one used by a score type
    // Without providers and without its PLACES measure, a condition score is the overall score.
    const differing = db
      .prepare(`SELECT COUNT(*) FROM health_scores a JOIN health_scores b ON b.zip_code = a.zip_code AND b.score_type_id = 3
      WHERE a.score_type_id = 1 AND a.healthscore <> b.healthscore`)
      .pluck()
      .get();
    expect(differing).toBe(0);
    expect(db.prepare('SELECT COUNT(*) FROM health_scores WHERE score_type_id <> 10 AND prevalence_used = 1').pluck().get()).toBe(0);
    expect(
      db.prepare('SELECT COUNT(*) FROM health_scores WHERE score_type_id = 10 AND prevalence_used = 1').pluck().get() as number,
    ).toBeGreaterThan(30_000);
  });

  it("places each ZIP's residents at HUD's point of its residential addresses, where HUD has a plausible one", () => {
    const hud = new Map(bundled('crosswalks/hud_zip_pop_weighted_centroids_2021q4.csv.gz').map((r) => [r.STD_ZIP5, r]));
    const zips = db
      .prepare('SELECT zip_code, latitude, longitude, point_source, gazetteer_latitude, gazetteer_longitude FROM zips')
      .all() as Array<{
      zip_code: string;
      latitude: number;
      longitude: number;
      point_source: string;
      gazetteer_latitude: number;
      gazetteer_longitude: number;
    }>;
    const fromHud = zips.filter((z) => z.point_source === 'hud_residential');
    expect(fromHud.length).toBeGreaterThan(31_000);
    for (const z of fromHud) {
      const row = hud.get(z.zip_code)!;
      expect([z.latitude, z.longitude], z.zip_code).toEqual([Number(row.LATITUDE), Number(row.LONGITUDE)]);
    }
    for (const z of zips.filter((z) => z.point_source === 'gazetteer_internal'))
      expect([z.latitude, z.longitude], z.zip_code).toEqual([z.gazetteer_latitude, z.gazetteer_longitude]);
    // Jackson WY: the town, not the mountains 8.8 miles out; Guam's rows (longitude of the wrong sign) are refused.
    const jackson = zips.find((z) => z.zip_code === '83001')!;
    expect(miles(jackson.gazetteer_latitude, jackson.gazetteer_longitude, jackson.latitude, jackson.longitude)).toBeGreaterThan(8);
    expect(miles(jackson.latitude, jackson.longitude, 43.4799, -110.7624)).toBeLessThan(1.5); // Jackson's town square
    expect(zips.find((z) => z.zip_code === '96910')!.point_source).toBe('gazetteer_internal');
  });

  it('gives a town with its own emergency hospital the hospital component it has (Jackson WY, Elko NV, Taos NM: 55 or more)', () => {
    for (const zip of ['83001', '89801', '87571']) {
      expect(byZip.get(zip)!.hospital_score, zip).toBeGreaterThanOrEqual(55);
      expect(byZip.get(zip)!.label, zip).not.toBe('Healthcare Desert');
    }
    // The road table's 43 minutes for Jackson average over 481 square miles; the residents' drive is estimated instead.
    const jackson = db
      .prepare("SELECT z.road_times, a.emergency_minutes FROM zips z JOIN zip_access a USING (zip_code) WHERE zip_code = '83001'")
      .get() as {
      road_times: number;
      emergency_minutes: number;
    };
    expect(jackson).toMatchObject({ road_times: 0 });
    expect(jackson.emergency_minutes).toBeLessThan(5);
  });

  it('calls no ZIP of 5,000+ residents that holds an emergency hospital (by the CMS file itself) a desert', () => {
    const zcta = new Map(bundled('crosswalks/uds_zip_zcta_2021.csv.gz').map((r) => [r.ZIP_CODE, r.ZCTA]));
    const withEmergency = new Set(
      bundled('cms/Hospital_General_Information.csv.gz')
        .filter((r) => /^(Acute Care|Critical Access)/.test(r['Hospital Type']) && r['Emergency Services'] === 'Yes')
        .map((r) => zcta.get(r['ZIP Code'].padStart(5, '0')) ?? r['ZIP Code'].padStart(5, '0')),
    );
    const towns = ranked().filter((r) => r.population >= 5_000 && withEmergency.has(r.zip_code));
    expect(towns.length).toBeGreaterThan(3_000);
    expect(towns.filter((r) => r.label === 'Healthcare Desert').map((r) => r.zip_code)).toEqual([]);
    expect(towns.filter((r) => r.hospital_score < 50).length / towns.length).toBeLessThan(0.01);
  });

  it('is what docs/VALIDATION.md shows (UPDATE_DOCS=1 rewrites it)', () => {
    const doc = readFileSync(VALIDATION_DOC, 'utf8');
    const meta = JSON.parse(db.prepare("SELECT value FROM meta WHERE key = 'validation'").pluck().get() as string);
    const expected = markdown(
      {
        build_id: JSON.parse(db.prepare("SELECT value FROM meta WHERE key = 'build_id'").pluck().get() as string),
        built_at: new Date().toISOString(),
        dataset: JSON.parse(db.prepare("SELECT value FROM meta WHERE key = 'dataset'").pluck().get() as string),
        validation: meta,
        provider_coverage: JSON.parse(db.prepare("SELECT value FROM meta WHERE key = 'provider_coverage'").pluck().get() as string),
      },
      meta,
    );
    // From the checks on: the heading names the build id and date, which change with every code change.
    const body = (text: string) => text.slice(text.indexOf('## Checks'));
    // A hand-written section before the checks (what a change of method moved) is kept as it is.
    const kept = /<!-- kept:start -->[\s\S]*<!-- kept:end -->\n\n/.exec(doc)?.[0] ?? '';
    if (process.env.UPDATE_DOCS && body(doc) !== body(expected))
      writeFileSync(VALIDATION_DOC, expected.replace('## Checks', `${kept}## Checks`));
    else expect(body(doc), 'UPDATE_DOCS=1 npx vitest run test/scores-world.test.ts').toBe(body(expected));
  });

  it("passes every check of the build's own validation report", () => {
    const report = meta('validation');
    expect(report.checks.filter((c: { pass: boolean }) => !c.pass)).toEqual([]);
    expect(report.checks.length).toBeGreaterThanOrEqual(7);
  });
});
