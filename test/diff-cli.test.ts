import { copyFileSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { diffBuilds } from '../src/diff/index.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { tempDir } from './helpers/files.ts';
import { hcas as runHcas } from './helpers/cli.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Runs `hcas ARGS` (in this process). */
const hcas = (...args: string[]) => runHcas(args);

/** Scoring constants both copies record, so the causes know the reaches and the social-need measures. */
const SCORING = {
  HOSPITAL_STEPS: [
    [15, 1],
    [30, 0.68],
    [60, 0.22],
  ],
  PROVIDER_STEPS: [
    [10, 1],
    [20, 0.68],
    [30, 0.22],
  ],
  MINUTES_PER_STRAIGHT_MILE: 2,
  NEED_MEASURES: [{ measure: 'poverty_pct', noNeedAt: 5, fullNeedAt: 40, weight: 0.3 }],
  GENERAL_HOSPITAL_TYPES: ['acute', 'critical'],
  EMERGENCY_ONLY_TYPES: ['rural emergency'],
  bands: [{ min: 0, label: 'Healthcare Paradise' }],
};

/**
 * Two copies of the fixture build, the second changed by SQL in every way the report describes: sources
 * added, removed and changed; a hospital closed and another's beds changed; a ZIP's residents, poverty and
 * residents' point; clinicians; a column only NEW has; and the scores those changes would move.
 */
function rebuildPair(dir: string, fixture: string): { old: string; current: string } {
  const [old, current] = [path.join(dir, 'old.sqlite'), path.join(dir, 'new.sqlite')];
  for (const file of [old, current]) {
    copyFileSync(fixture, file);
    const db = new Database(file);
    const meta = (key: string) => JSON.parse(db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string);
    const setMeta = (key: string, value: unknown) =>
      db.prepare('INSERT OR REPLACE INTO meta VALUES (?, ?)').run(key, JSON.stringify(value));
    setMeta('scoring', SCORING);
    db.exec(
      "ALTER TABLE zip_access ADD COLUMN emergency_source TEXT DEFAULT 'table'; UPDATE zips SET point_source = 'gazetteer_internal' WHERE zip_code = '02807'",
    );
    if (file === current) {
      const sources = meta('sources') as Array<Record<string, unknown>>;
      sources[1].sha256 = '0'.repeat(64);
      sources.push({
        key: 'hospital_drive_times',
        layout: 'drive_times',
        path: '/x/Hosp-ZIP25.csv.gz',
        vintage: '2025',
        sha256: '1'.repeat(64),
      });
      setMeta('sources', sources.slice(1));
      setMeta('row_counts', { ...meta('row_counts'), facilities: 190 });
      setMeta('provider_coverage', { status: 'measured', national: { primary_care: { observed: 190 } } });
      setMeta('code', { package_version: '0.2.0', pipeline_sha256: 'a'.repeat(64) });
      setMeta('dataset', { ...meta('dataset'), notice: 'a new notice' });
      db.exec(`
        ALTER TABLE zips ADD COLUMN residents_vintage TEXT;
        DELETE FROM facilities WHERE ccn = '410016';
        UPDATE facilities SET staffed_beds = 99 WHERE ccn = '410028';
        UPDATE zip_access SET nearest_hospital_id = 28, nearest_hospital_miles = 6.5, emergency_minutes = 13 WHERE zip_code = '02823';
        UPDATE health_scores SET hospital_score = hospital_score - 20, healthscore = healthscore - 8, label = 'Excellent Access'
          WHERE zip_code = '02823' AND score_type_id IN (1, 2);
        UPDATE zips SET population = population * 2 WHERE zip_code = '02806';
        UPDATE census SET value = 35 WHERE zip_code = '02806' AND measure = 'poverty_pct';
        UPDATE health_scores SET people_score = people_score - 6, provider_score = provider_score - 1, healthscore = healthscore - 3
          WHERE zip_code = '02806' AND score_type_id = 1;
        UPDATE zips SET latitude = latitude + 0.05, point_source = 'hud_residential' WHERE zip_code = '02807';
        UPDATE health_scores SET travel_score = travel_score + 4, healthscore = healthscore + 1 WHERE zip_code = '02807' AND score_type_id = 1;
        UPDATE zip_access SET emergency_source = 'estimate' WHERE zip_code = '02807';
        UPDATE provider_postings SET count = count + 5 WHERE kind = 'state' AND key = 'RI';
        UPDATE provider_postings SET count = count + 3 WHERE kind = 'zip' AND key = '02804';
        UPDATE health_scores SET provider_score = provider_score + 2 WHERE zip_code = '02804' AND score_type_id = 1;
      `);
    } else setMeta('provider_coverage', { status: 'measured', national: { primary_care: { observed: 200 } } });
    db.close();
  }
  return { old, current };
}

/**
 * Every path of a JSON value with the types seen there: `[]` for an array's items (listed themselves only when
 * they are not objects, whose fields are), `*` for the keys of `by_field`; `any` paths are not entered.
 */
function paths(value: unknown, at: string, out: Map<string, Set<string>>, opaque: Set<string>): void {
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  if (at && !(at.endsWith('[]') && type === 'object')) (out.get(at) ?? out.set(at, new Set()).get(at)!).add(type);
  if (opaque.has(at) || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) for (const item of value) paths(item, `${at}[]`, out, opaque);
  else
    for (const [key, item] of Object.entries(value))
      paths(item, at.endsWith('by_field') ? `${at}.*` : at ? `${at}.${key}` : key, out, opaque);
}

describe('hcas diff on the command line', () => {
  let fixture: string;
  let pair: { old: string; current: string };
  let dir: string;
  beforeAll(async () => {
    fixture = await fixtureDb();
    dir = tempDir();
    pair = rebuildPair(dir, fixture);
  });

  it('a build against itself: status 0 and nothing to explain', async () => {
    const run = await hcas('diff', fixture, fixture);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^1\. BUILDS$/m);
    expect(run.stdout).toContain('Same build id: the same inputs, settings and code.');
    expect(run.stdout).toContain('The builds agree within the thresholds (--max-shift 0, --max-band-moves 0%): exit status 0.');
    // NEW defaults to --db (else $HCAS_DB).
    expect((await hcas('diff', fixture, '--db', fixture)).code).toBe(0);
  });

  it('a build against itself is read once, and reports what a byte copy of it does', () => {
    const copy = path.join(dir, 'copy.sqlite');
    copyFileSync(fixture, copy);
    const options = { top: Number.POSITIVE_INFINITY, minResidents: 0 };
    // One snapshot serves as both OLD and NEW: nothing the comparison does may change it.
    const once = diffBuilds(fixture, fixture, options);
    expect({ ...once, new: { ...once.new, file: copy } }).toEqual(diffBuilds(fixture, copy, options));
  });

  it('explains each change by the input behind it, and exits 1', async () => {
    const run = await hcas('diff', pair.old, pair.current, '--json', '--top', 'all', '--min-residents', '0');
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/^hcas: the builds differ beyond the thresholds: scores moved by up to 8 points \(overall\)/m);
    const report = JSON.parse(run.stdout);
    expect(report.format).toBe('hcas-diff/1');
    expect(report.builds.sources.map((s: { key: string; change: string }) => `${s.key} ${s.change}`)).toEqual([
      'zipcodes removed',
      'acs_population_income changed',
      'hospital_drive_times added',
    ]);
    expect(report.builds.not_compared).toEqual(['column zips.residents_vintage: only in NEW', 'meta.code: only in NEW']);
    expect(report.new.code_version).toBe(`0.2.0 (pipeline ${'a'.repeat(12)})`);
    const first = (zip: string) => report.why.zips.find((z: { zip: string }) => z.zip === zip).causes[0];
    expect(first('02823')).toMatchObject({ id: 'facility:ccn:410016', kind: 'facility' });
    expect(first('02823').text).toMatch(/^hospital removed: Fiskeville General Hospital, .*RI \(CCN 410016\), 0\.\d mi away$/);
    expect(first('02806')).toMatchObject({ id: 'need:02806', text: expect.stringContaining('poverty_pct') });
    expect(report.why.zips.find((z: { zip: string }) => z.zip === '02806').causes.map((c: { id: string }) => c.id)).toContain(
      'population:02806',
    );
    expect(first('02807')).toMatchObject({
      id: 'point:02807',
      text: expect.stringMatching(/moved 3\.\d mi; point_source gazetteer_internal → hud_residential$/),
    });
    expect(first('02804')).toMatchObject({ id: 'clinicians:02804', kind: 'clinicians' });
    const facts = report.why.zips.find((z: { zip: string }) => z.zip === '02823').facts;
    expect(facts).toContainEqual({
      fact: 'nearest_hospital',
      old: expect.stringMatching(/^Fiskeville General Hospital, .* \(0\.2 mi\)$/),
      new: expect.stringMatching(/^Kenyon General Hospital/),
    });
    expect(facts).toContainEqual({ fact: 'emergency_minutes', old: 0.4, new: 13 });
    expect(report.why.zips.find((z: { zip: string }) => z.zip === '02807').facts).toContainEqual({
      fact: 'emergency_source',
      old: 'table',
      new: 'estimate',
    });
    expect(report.why.facilities).toMatchObject({ added: 0, removed: 1, changed: 1, by_field: { staffed_beds: 1 } });
    expect(report.why.providers.by_state).toEqual([{ state: 'RI', old: expect.any(Number), new: expect.any(Number) }]);
    expect(report.why.providers.by_category).toEqual([{ category: 'primary_care', old: 200, new: 190 }]);
    expect(report.scores.band_moves).toEqual([
      { from: 'Healthcare Paradise', to: 'Excellent Access', zips: 1, residents: expect.any(Number) },
    ]);
  });

  it('prints a JSON document whose every field docs/DIFF.md lists, with the types it gives', async () => {
    const documented = new Map<string, Set<string>>();
    const section = readFileSync(path.join(ROOT, 'docs/DIFF.md'), 'utf8').split('\n## The JSON document')[1];
    for (const match of section.matchAll(/^\| `([^`]+)` \| ([a-z, ]+) \|/gm)) documented.set(match[1], new Set(match[2].split(', ')));
    expect(documented.size).toBeGreaterThan(150);
    const opaque = new Set([...documented].filter(([, types]) => types.has('any')).map(([at]) => at));
    const seen = new Map<string, Set<string>>();
    for (const args of [
      [pair.old, pair.current],
      [fixture, fixture],
      [pair.current, pair.old],
    ]) {
      const run = await hcas('diff', ...args, '--json', '--top', 'all', '--min-residents', '0');
      paths(JSON.parse(run.stdout), '', seen, opaque);
    }
    const undocumented = [...seen.keys()].filter((at) => !documented.has(at));
    expect(undocumented, 'add these fields to docs/DIFF.md').toEqual([]);
    const neverSeen = [...documented.keys()].filter((at) => !seen.has(at));
    expect(neverSeen, 'docs/DIFF.md lists fields the report does not have').toEqual([]);
    for (const [at, types] of seen) {
      const allowed = documented.get(at)!;
      if (!allowed.has('any'))
        expect(
          [...types].filter((t) => !allowed.has(t)),
          `${at} is ${[...types]} but documented ${[...allowed]}`,
        ).toEqual([]);
    }
  });

  it('agrees within the thresholds given: status 0', async () => {
    const run = await hcas('diff', pair.old, pair.current, '--max-shift', '20', '--max-band-moves', '100%');
    expect(run.code, run.stderr).toBe(0);
    expect((await hcas('diff', pair.old, pair.current, '--max-shift', '20', '--max-band-moves', '0.001')).code).toBe(1);
  });

  it('prints aligned tables, or Markdown for a pull request', async () => {
    const text = await hcas('diff', pair.old, pair.current, '--min-residents', '0');
    expect(text.stdout).toMatch(/^source +change +file +vintage +sha256 +rows landed +rejected$/m);
    expect(text.stdout).toMatch(/^Not compared \(the builds do not share it\):\n {2}column zips\.residents_vintage: only in NEW$/m);
    expect(text.stdout).toMatch(/^ {6}why: hospital removed: Fiskeville General Hospital/m);
    const markdown = await hcas('diff', pair.old, pair.current, '--markdown', '--score-type', 'type-1-diabetes');
    expect(markdown.stdout).toMatch(/^# hcas diff: build [0-9a-f]{16} \(OLD\) → [0-9a-f]{16} \(NEW\)$/m);
    expect(markdown.stdout).toContain('\n## 2. Scores (type-1-diabetes)\n');
    expect(markdown.stdout).toContain('| zipcodes | removed |');
  });

  it('compares builds of other schema versions on what they share, and says what it could not', async () => {
    const older = path.join(dir, 'older.sqlite');
    copyFileSync(fixture, older);
    const db = new Database(older);
    // A build from before the residents' points (no point columns), zip_access and data_quality.
    db.exec(`
      ALTER TABLE zips DROP COLUMN point_source; ALTER TABLE zips DROP COLUMN gazetteer_latitude; ALTER TABLE zips DROP COLUMN gazetteer_longitude;
      DROP TABLE zip_access; DELETE FROM meta WHERE key = 'data_quality';
      DELETE FROM score_types WHERE id = 11; DELETE FROM health_scores WHERE score_type_id = 11`);
    db.close();
    const run = await hcas('diff', older, pair.current, '--json', '--min-residents', '0');
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.builds.not_compared).toEqual(
      expect.arrayContaining([
        'table zip_access: only in NEW',
        'column zips.point_source: only in NEW',
        'column zips.gazetteer_latitude: only in NEW',
        'meta.data_quality: only in NEW',
        'score type 11 prostate-cancer: only in NEW',
      ]),
    );
    expect(report.scores.score_types).toHaveLength(10);
    expect(report.old.provider_component).toBeNull();
    // No access facts without zip_access; the scores and the rest are compared all the same.
    expect(report.why.zips.flatMap((z: { facts: Array<{ fact: string }> }) => z.facts.map((f) => f.fact))).not.toContain(
      'emergency_minutes',
    );
    expect(report.scores.zips.changed).toBeGreaterThan(0);
  });

  it('a bad flag is a usage error (2) that names the fix', async () => {
    for (const [args, message] of [
      [['--max-band-moves', '150%'], /--max-band-moves must be a percentage \(1%\) or a share from 0 to 1 \(0\.01\), got 150%/],
      [['--max-shift', 'two'], /--max-shift must be a number of points from 0 to 100, got two/],
      [['--top', 'ten'], /--top must be a whole number or all, got ten/],
      [['--by', 'zips'], /--by must be points or residents, got zips/],
      [
        ['--score-type', 'flu'],
        /--score-type must be a score type id or slug both builds have \(1 overall, 2 type-1-diabetes, .*got "flu"/,
      ],
      [['--json', '--markdown'], /choose one of --json and --markdown/],
      [['--db', fixture], /give NEW either as an argument or with --db, not both/],
    ] as const) {
      const run = await hcas('diff', fixture, fixture, ...args);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toMatch(message);
    }
  });

  it('a missing, damaged or foreign file is exit 3, naming which and why', async () => {
    const text = path.join(dir, 'notes.txt');
    writeFileSync(text, 'not a database\n');
    const foreign = path.join(dir, 'foreign.sqlite');
    new Database(foreign).exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
    const cut = path.join(dir, 'cut.sqlite');
    copyFileSync(fixture, cut);
    truncateSync(cut, Math.floor(statSync(cut).size / 2));
    for (const [file, message] of [
      [path.join(dir, 'missing.sqlite'), /OLD .*missing\.sqlite is not a build hcas diff can read: no such file/],
      [text, /not a build hcas diff can read: the file is not an SQLite database/],
      [foreign, /not a build hcas diff can read: it has no meta, zips, health_scores table: it is not an hcas build/],
      [cut, /not a build hcas diff can read: the file is cut short/],
    ] as const) {
      const run = await hcas('diff', file, fixture);
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toMatch(message);
    }
    const reversed = await hcas('diff', fixture, foreign);
    expect(reversed.stderr).toMatch(/^hcas: NEW .*foreign\.sqlite is not a build/m);
  });

  it('refuses a build of a schema it cannot compare (issue #44, point 6), in either order, on one line', async () => {
    // The score column renamed and a table dropped: `serve` and `validate` refuse it (exit 3), and diff used to
    // report every ZIP changed and none moved, exit 0.
    const other = path.join(dir, 'other-schema.sqlite');
    copyFileSync(fixture, other);
    const db = new Database(other);
    db.exec('ALTER TABLE health_scores RENAME COLUMN healthscore TO score; DROP TABLE tvi');
    db.close();
    for (const [args, side] of [
      [[fixture, other], 'NEW'],
      [[other, fixture], 'OLD'],
    ] as const) {
      const run = await hcas('diff', ...args);
      expect([run.code, run.stdout], run.stderr).toEqual([3, '']);
      expect(run.stderr).toBe(
        `hcas: ${side} ${other} is not a build hcas diff can read: it has no column health_scores.healthscore, which every hcas build has: its scores cannot be compared\n`,
      );
    }
  });
});
