/**
 * `hcas diff` benchmark: two full-scale builds (4 million providers, 85,000 facilities each) compared, beside
 * the least SQLite itself takes to answer "which scores differ": both files attached and their score tables
 * joined (the sqlite3 shell, else better-sqlite3). The two builds are two synthetic nations of different seeds,
 * so every ZIP, facility and provider differs: the diff's worst case. A build against itself is the best case.
 * Each answer is checked before it is timed; the contenders alternate over the rounds and medians are
 * compared, since the host's speed drifts. Target: the worst case under 10 s and 500 MB.
 * Its files live in a temporary folder removed at the end (about 3.5 GB while it runs).
 * Stand-alone: node bin/run-ts.js bench/diff.ts [--old FILE] [--new FILE] [--rounds N] (a file not given is built).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, median, numberOption, option, printTable, runDirectly } from './lib.ts';
import { measure, type Run } from './build.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const HCAS = path.join(ROOT, 'bin/hcas.js');
const TARGET = { seconds: 10, peakMb: 500 };
const NATION = ['--synthetic-nation', '--providers', '4000000', '--facilities', '85000'];

type DiffSummary = { scores: { zips: { compared: number; changed: number } }; status: { agree: boolean } };

interface Contender {
  name: string;
  command: string;
  args: string[];
  status: number;
  /** Throws when the answer is wrong. */
  check(stdout: string): void;
  target: boolean;
}

/** Builds the full-scale nations not given (OLD seed 1, NEW seed 2), times the diff and the baseline, and prints the table. */
export async function benchDiff(options: { old?: string; new?: string; rounds?: number } = {}): Promise<void> {
  const rounds = options.rounds ?? 3;
  const dir = options.old && options.new ? null : mkdtempSync(path.join(tmpdir(), 'hcas-bench-diff-'));
  try {
    // `npm run bench` passes its own full-scale build (the default seed) as OLD: only NEW is built here.
    const a = options.old ?? nation(dir!, 'a', '1');
    const b = options.new ?? nation(dir!, 'b', '2');
    const zipsBoth = 33_791;
    const diff = (name: string, other: string, status: number, check: (report: DiffSummary) => boolean): Contender => ({
      name,
      command: process.execPath,
      args: [HCAS, 'diff', a, other, '--json'],
      status,
      check: (out) => {
        const report = JSON.parse(out) as DiffSummary;
        if (report.scores.zips.compared !== zipsBoth || !check(report))
          throw new Error(`unexpected report: ${JSON.stringify(report.scores.zips)}`);
      },
      target: true,
    });
    const contenders: Contender[] = [
      diff('hcas diff OLD NEW --json (two nations: everything differs)', b, 1, (r) => r.scores.zips.changed > 30_000 && !r.status.agree),
      diff('hcas diff OLD OLD --json (identical)', a, 0, (r) => r.scores.zips.changed === 0 && r.status.agree),
      baseline(a, b),
    ];
    for (const c of contenders) c.check(measure(c.command, c.args, {}, c.status).stdout);
    const runs = new Map<Contender, Run[]>(contenders.map((c) => [c, []]));
    for (let round = 0; round < rounds; round++) for (const c of contenders) runs.get(c)!.push(measure(c.command, c.args, {}, c.status));
    const base = median(runs.get(contenders.at(-1)!)!.map((r) => r.seconds));
    const rows = contenders.map((c) => {
      const seconds = median(runs.get(c)!.map((r) => r.seconds));
      const peak = Math.max(...runs.get(c)!.map((r) => r.peakRssMb));
      const verdict = !c.target ? '' : seconds < TARGET.seconds && peak < TARGET.peakMb ? 'yes' : 'NO';
      return [
        c.name,
        fmt(seconds, 2),
        fmt(Math.min(...runs.get(c)!.map((r) => r.seconds)), 2),
        fmt(peak, 0),
        `${fmt(seconds / base, 1)}x`,
        verdict,
      ];
    });
    console.log(
      `\nhcas diff, two full-scale builds (targets: under ${TARGET.seconds} s and ${TARGET.peakMb} MB; ${rounds} alternating rounds)`,
    );
    printTable(['contender', 'median s', 'best s', 'peak MB', 'vs baseline', 'on target'], rows);
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

/** A synthetic nation written and built in `dir` (seed `seed`): the build file. */
function nation(dir: string, name: string, seed: string): string {
  const raw = path.join(dir, `raw-${name}`);
  const out = path.join(dir, `${name}.sqlite`);
  console.log(`building full-scale nation ${name} (seed ${seed}) into ${dir} ...`);
  execFileSync(process.execPath, [HCAS, 'sample', ...NATION, '--seed', seed, '--out', raw, '--quiet'], { stdio: 'inherit' });
  const manifest = path.join(ROOT, 'raw/manifests/synthetic.json');
  execFileSync(process.execPath, [HCAS, 'build', '--manifest', manifest, '--root', raw, '--out', out, '--quiet'], { stdio: 'inherit' });
  rmSync(raw, { recursive: true, force: true });
  return out;
}

/** SQLite alone: NEW attached to OLD, their score tables joined, the differing scores counted. */
function baseline(a: string, b: string): Contender {
  const sql =
    'SELECT count(*), sum(o.healthscore <> n.healthscore) FROM main.health_scores o ' +
    'JOIN other.health_scores n ON n.zip_code = o.zip_code AND n.score_type_id = o.score_type_id';
  const check = (out: string) => {
    if (!out.trim().startsWith('371701')) throw new Error(`the join found ${out.trim()}, not 371,701 score pairs`);
  };
  if (spawnSync('sqlite3', ['--version']).status === 0)
    return {
      name: 'baseline: sqlite3 ATTACH + join of the score tables',
      command: 'sqlite3',
      args: ['-readonly', a, `ATTACH '${b}' AS other; ${sql}`],
      status: 0,
      check,
      target: false,
    };
  const script = `const D=require('better-sqlite3');const d=new D(process.argv[1],{readonly:true});d.prepare('ATTACH ? AS other').run(process.argv[2]);console.log(d.prepare(${JSON.stringify(sql)}).raw().get().join('|'))`;
  return {
    name: 'baseline: better-sqlite3 ATTACH + join of the score tables',
    command: process.execPath,
    args: ['-e', script, a, b],
    status: 0,
    check,
    target: false,
  };
}

if (runDirectly(import.meta.filename)) {
  await benchDiff({ old: option('--old'), new: option('--new'), rounds: numberOption('--rounds') });
}
