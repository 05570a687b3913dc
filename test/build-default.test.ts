import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../src/api/index.ts';
import { cachedDefaultBuild } from './helpers/real-build.ts';

/**
 * The default build as `npm start` makes it: the bundled real public data (raw/public) and synthetic providers
 * written by `hcas sample` (its defaults: 250,000 providers, a 6.5% sample, seed 20260101), read through the API.
 */
describe('the default build: real public data, synthetic providers', () => {
  let api: Api;
  let db: Database.Database;
  let fraction: number;
  let log: string[];
  let rejectsFile: string;
  const get = async (url: string) => JSON.parse((await api.respond({ method: 'GET', url: `/api/v1/${url}` })).body.toString('utf8'));

  beforeAll(async () => {
    const made = await cachedDefaultBuild();
    ({ log, rejectsFile, sampleFraction: fraction } = made);
    db = new Database(made.out, { readonly: true });
    api = Api.open(made.out);
  }, 600_000);

  it('says which parts are real and which synthetic', async () => {
    const meta = await get('meta/');
    expect(meta.dataset.synthetic).toEqual(['providers']);
    expect(meta.dataset.notice).toMatch(/SYNTHETIC PROVIDERS/);
    expect(meta.data_quality.provider).toMatchObject({ status: 'sample', synthetic: true });
    expect(meta.data_quality.provider.sample_fraction).toBeCloseTo(fraction, 5);
    const record = await get('health-scores/10021/');
    expect(record.data_quality.components.provider).toBe('sample');
    expect(record.data_quality.note).toMatch(new RegExp(`^Clinicians are synthetic \\(a declared ${(fraction * 100).toFixed(2)}% sample`));
    // Everything but the providers comes from raw/public: its 34 files but the OB/GYN roster, which the synthetic OB/GYNs follow.
    const sources = meta.sources as Array<{ key: string; path: string }>;
    expect(sources.filter((s) => !['nppes', 'doctors_clinicians'].includes(s.key)).length).toBe(33);
    expect(sources.map((s) => s.key)).not.toContain('obgyn_roster');
  });

  it('scores the places whose access is known as a researcher would: medical centres high, frontier low', async () => {
    for (const zip of ['10021', '02115', '77030', '55902'])
      expect((await get(`health-scores/${zip}/`)).healthscore, zip).toBeGreaterThanOrEqual(70);
    const frontier = db
      .prepare(`SELECT h.healthscore FROM health_scores h JOIN zip_reference r ON r.zip_code = h.zip_code JOIN zips z ON z.zip_code = h.zip_code
      WHERE h.score_type_id = 1 AND r.reference_hospital_minutes >= 90 AND z.small_population = 0`)
      .pluck()
      .all() as number[];
    expect(frontier.length).toBeGreaterThan(100);
    expect(frontier.filter((s) => s < 50).length / frontier.length).toBeGreaterThanOrEqual(0.95);
  });

  it('scales the sample back to the documented densities (coverage measured as complete)', () => {
    const coverage = JSON.parse(db.prepare("SELECT value FROM meta WHERE key = 'provider_coverage'").pluck().get() as string);
    expect(coverage.status).toBe('sample');
    expect(coverage.roster.complete).toContain('primary_care');
    expect(coverage.national.primary_care.share).toBeGreaterThan(0.85);
    expect(coverage.national.primary_care.share).toBeLessThan(1.2);
    expect(db.prepare('SELECT COUNT(*) FROM health_scores WHERE provider_score IS NULL').pluck().get()).toBe(0);
  });

  it("passes every check of the build's validation report", () => {
    const report = JSON.parse(db.prepare("SELECT value FROM meta WHERE key = 'validation'").pluck().get() as string);
    expect(
      report.checks.filter((c: { pass: boolean }) => !c.pass).map((c: { name: string; value: string }) => `${c.name}: ${c.value}`),
    ).toEqual([]);
  });

  it("the build log's counts add up: what landed at ingest, less what later stages left out, is the reconciliation (issue 28)", () => {
    const number = (text: string) => Number(text);
    const ingested = new Map(
      log.flatMap((line) => {
        const m = /^ {2}(\w+) +(\d+) read +(\d+) landed +(\d+) rejected/.exec(line);
        return m ? [[m[1], { read: number(m[2]), landed: number(m[3]), rejected: number(m[4]) }] as const] : [];
      }),
    );
    const later = new Map<string, number>();
    for (const line of log.filter((l) => / after landing, so rejected in the reconciliation: /.test(l)))
      for (const [, key, n] of line.split(': ')[1].matchAll(/(\w+) (\d+)/g)) later.set(key, (later.get(key) ?? 0) + number(n));
    expect(later.get('hifld_hospitals')).toBeGreaterThan(0);
    const reconciled = db.prepare("SELECT value FROM meta WHERE key = 'reconciliation'").pluck().get() as string;
    for (const tally of JSON.parse(reconciled) as Array<{ key: string; read: number; landed: number; rejected: number }>) {
      const at = ingested.get(tally.key);
      expect(at, tally.key).toBeDefined();
      expect(at!.read).toBe(tally.read);
      expect(at!.landed - (later.get(tally.key) ?? 0), tally.key).toBe(tally.landed);
      expect(at!.rejected + (later.get(tally.key) ?? 0), tally.key).toBe(tally.rejected);
    }
  });

  it('every reject has a stable code to group by, in the rejects file and in meta (issue 28)', () => {
    const lines = readFileSync(rejectsFile, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('source,file,line,kind,code,reason');
    const codes = new Map<string, Set<string>>();
    for (const line of lines.slice(1)) {
      const [, source, kind, code, reason] = /^([^,]*),(?:"(?:[^"]|"")*"|[^,]*),\d+,([a-z]+),([a-z0-9_]+),(.+)$/.exec(line)!;
      expect(reason.length).toBeGreaterThan(0);
      const set = codes.get(source) ?? new Set();
      set.add(`${kind}:${code}`);
      codes.set(source, set);
    }
    // Reasons whose text carries values (a county's name, drive minutes, a CCN) group under one code each.
    expect([...codes.get('county_urban_rural')!]).toEqual(['excluded:county_replaced']);
    expect(new Set(codes.get('hospital_drive_times'))).toEqual(new Set(['invalid:drive_time_too_short', 'invalid:drive_time_too_long']));
    expect(codes.get('hifld_hospitals')).toContain('excluded:ccn_is_not_in_the_current_cms_hospital_list');
    const reconciled = JSON.parse(db.prepare("SELECT value FROM meta WHERE key = 'reconciliation'").pluck().get() as string) as Array<{
      key: string;
      rejected: number;
      reasons: Record<string, { kind: string; count: number; example: string }>;
    }>;
    for (const tally of reconciled) {
      const groups = Object.entries(tally.reasons);
      expect(
        groups.reduce((sum, [, group]) => sum + group.count, 0),
        tally.key,
      ).toBe(tally.rejected);
      expect(new Set(groups.map(([code, group]) => `${group.kind}:${code}`))).toEqual(codes.get(tally.key) ?? new Set());
    }
  });
});
