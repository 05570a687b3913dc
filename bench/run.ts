/**
 * `npm run bench`: every benchmark, each printing its own table with ratios to a baseline measured in the
 * same run. Builds what it measures: the default sample (and, unless --quick, the full national scale).
 *   node bin/run-ts.js bench/run.ts [--quick] [--only build,api,cli,...]
 * A bench that misses a target it enforces (request-path) is reported at the end, and the run exits 1.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const quick = process.argv.includes('--quick');
const onlyArg = process.argv[process.argv.indexOf('--only') + 1];
const only = process.argv.includes('--only') ? new Set(onlyArg.split(',')) : null;
const wanted = (name: string) => !only || only.has(name);

/**
 * Writes a sample and builds it (once per size per machine boot: reused from the temp folder): the default
 * build (bundled real data, synthetic providers) or, with --synthetic-nation, the national scale.
 */
function sampleBuild(name: string, args: string[], manifest: string): string {
  const dir = path.join(tmpdir(), `hcas-bench-db-${name}`);
  const db = path.join(dir, 'hcas.sqlite');
  if (!existsSync(db)) {
    mkdirSync(dir, { recursive: true });
    console.log(`building the ${name} sample into ${dir} ...`);
    const hcas = path.join(ROOT, 'bin/hcas.js');
    execFileSync(process.execPath, [hcas, 'sample', '--out', path.join(dir, 'raw'), ...args], { stdio: 'inherit' });
    execFileSync(
      process.execPath,
      [hcas, 'build', '--manifest', path.join(ROOT, manifest), '--root', path.join(dir, 'raw'), '--out', db, '--quiet'],
      { stdio: 'inherit' },
    );
  }
  return db;
}

const defaultDb = sampleBuild('default', [], 'raw/manifests/sample.json');
const fullDb = quick
  ? defaultDb
  : sampleBuild('full', ['--synthetic-nation', '--providers', '4000000', '--facilities', '85000'], 'raw/manifests/synthetic.json');
const benches: Array<[string, () => Promise<void>]> = [
  ['build', async () => (await import('./build.ts')).benchBuild({ defaultOnly: quick })],
  ['api', async () => (await import('./api.ts')).benchApi({ db: defaultDb })],
  ['cli', async () => (await import('./cli.ts')).benchCli({ db: defaultDb })],
  ['title-case', async () => (await import('./title-case.ts')).benchTitleCase()],
];
// The static export of the default and the full-scale build, and nginx serving it against hcas serve.
benches.push(['static', async () => (await import('./static.ts')).benchStatic({ db: defaultDb, full: quick ? undefined : fullDb })]);
// The map: the national view's size, its first paint and a hover in Chromium.
benches.push(['map', async () => (await import('./map.ts')).benchMap({ db: defaultDb })]);
// Two full-scale builds compared: the national build above as OLD, another nation built (and removed) by the bench as NEW.
if (!quick) benches.push(['diff', async () => (await import('./diff.ts')).benchDiff({ old: fullDb })]);
for (const [name, optional] of [
  ['directory', 'benchDirectory'],
  ['auth', 'benchAuth'],
  ['request-path', 'benchRequestPath'],
  ['flood', 'benchFlood'],
  ['replicas', 'benchReplicas'],
  ['exports', 'benchExports'],
] as const) {
  const file = path.join(import.meta.dirname, `${name}.ts`);
  if (existsSync(file))
    benches.push([
      name,
      async () => (await import(file))[optional]({ db: ['auth', 'request-path', 'replicas'].includes(name) ? defaultDb : fullDb }),
    ]);
}
// A bench that misses its target throws: the others still run, and the run ends with the misses and status 1.
const missed: string[] = [];
for (const [name, bench] of benches) {
  if (!wanted(name)) continue;
  console.log(`\n=== ${name}`);
  try {
    await bench();
  } catch (error) {
    missed.push(`${name}: ${(error as Error).message}`);
    console.log(`!! ${name} FAILED: ${(error as Error).message}`);
  }
}
if (missed.length > 0) {
  console.log(`\n!! ${missed.length} bench${missed.length === 1 ? '' : 'es'} failed:\n${missed.map((m) => `  ${m}`).join('\n')}`);
  process.exitCode = 1;
}
