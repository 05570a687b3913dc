import { spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, cpSync, existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentBuild } from '../pipeline/run/plan.ts';
import { sampleIsCurrent, sampleKey, STAMP_FILE } from '../producers/sample/stamp.ts';
import { hcas, linkedBin, shell, type RunOptions } from './helpers/cli.ts';
import { CommandSession, plainCommandLine } from './helpers/command-session.ts';
import { FixtureServer } from './helpers/fetch-server.ts';
import { tempDir } from './helpers/files.ts';
import { mirroredSources, mirrorRoutes } from './helpers/national-mirror.ts';
import { copyPackage } from './helpers/package-copy.ts';
import { ServerProcess } from './helpers/process.ts';
import { cachedQuickStart, type QuickStart } from './helpers/quick-start.ts';
import { hasCommand } from './helpers/services.ts';

/**
 * The default build as a user makes it, in a fresh copy of the package: `hcas sample && hcas build` (the
 * first example of both help texts, run on a terminal so the progress bar shows; once per code and data, in a
 * copy of its own, test/helpers/quick-start.ts: its outputs are copied into this one), then every other example
 * of every help text, exactly as printed: a plain `hcas` line in one process that runs the copy's commands one
 * after another (test/helpers/command-session.ts), the rest (servers, `&&`) in bash with `hcas` on PATH as
 * `npm link` puts it. Then what the build
 * gives an analyst: reuse by npm start, the rejects file, the database found from any folder, progress of an
 * export. The national files' addresses of the copy point at a loopback mirror (test/helpers/national-mirror.ts),
 * so `hcas fetch` runs without the internet; nothing else differs from a user's machine.
 */
const work = tempDir('hcas-default-build-');
const copy = copyPackage(work);
const bin = linkedBin(copy);
const state = path.join(work, 'state.sqlite');
let mirror: FixtureServer;
let port = 0;
let session: CommandSession;

/** The environment of every command: its own key state, a free port for the server examples, no Redis, the copy's database. */
const exampleEnv = () => ({ HCAS_STATE: state, HCAS_PORT: String(port), REDIS_URL: undefined, HCAS_DB: undefined });

/** Every command runs in the copy's folder, with the environment above. */
function run(command: string, options: RunOptions = {}) {
  return shell(command, { cwd: copy, bin, timeoutMs: 600_000, ...options, env: { ...exampleEnv(), ...options.env } });
}

/**
 * A help example: a plain `hcas` command line (with its variables, a redirection or a pipe) runs in the copy's
 * command session, one Node process for them all (a process each was most of this file's CPU: bench/suite.ts
 * shows it); any other line in bash, as `run` does. Both run the copy's compiled code in the copy's folder.
 */
function runExample(line: string) {
  const plain = plainCommandLine(line);
  return plain ? session.run(plain, copy, exampleEnv()) : run(line);
}

/** The example lines of a help text: after `Examples:`, each line that runs `hcas` (maybe after variables). */
function examples(help: string): string[] {
  const after = help.split('\nExamples:\n')[1];
  if (after === undefined) return [];
  return after
    .split('\n')
    .filter((line) => /^ {2}([A-Z_]+=\S+ )*hcas /.test(line))
    .map((line) => line.trim());
}

/** A free TCP port on loopback, for the server examples (they are run with HCAS_PORT). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(free));
    });
  });
}

/** What a native crash leaves on stderr: an abort from a failed assertion in Node or an addon, a segfault. */
const NATIVE_CRASH = /Aborted|Assertion failed|Segmentation fault|core dumped|FATAL ERROR/;

/** Runs a `hcas serve` example until it answers a request, then stops it with SIGTERM; its exit status. */
async function serveExample(line: string): Promise<{ answered: number; code: number | null; stderr: string }> {
  const child = spawn('bash', ['-c', line], {
    cwd: copy,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      PATH: [bin, path.dirname(process.execPath), process.env.PATH].join(path.delimiter),
      HCAS_STATE: state,
      HCAS_PORT: String(port),
      REDIS_URL: '',
    },
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let answered = 0;
  for (let tries = 0; tries < 300 && child.exitCode === null && answered !== 200; tries++) {
    answered = await fetch(`http://127.0.0.1:${port}/api/v1/health-scores/10001/`).then(
      (r) => r.status,
      () => 0,
    );
    if (answered !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  process.kill(-child.pid!, 'SIGTERM');
  return { answered, code: await exited, stderr };
}

/**
 * Runs a `hcas preview` example until the export it serves answers `/api/v1/states/` as JSON, then stops it
 * with SIGTERM: the content type, the exit status. The preview prints its address (`--port 0` picks one).
 */
async function previewExample(line: string): Promise<{ type: string | null; code: number | null; stderr: string }> {
  const child = spawn('bash', ['-c', line], {
    cwd: copy,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PATH: [bin, path.dirname(process.execPath), process.env.PATH].join(path.delimiter) },
  });
  let [stdout, stderr] = ['', ''];
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let type: string | null = null;
  for (let tries = 0; tries < 300 && child.exitCode === null && type === null; tries++) {
    const url = / at (http:\/\/\S+\/) /.exec(stdout)?.[1];
    if (url)
      type = await fetch(`${url}api/v1/states/`).then(
        (r) => (r.ok ? r.headers.get('content-type') : null),
        () => null,
      );
    if (type === null) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
  return { type, code: await exited, stderr };
}

const helps = new Map<string, string>();
let firstRun: QuickStart['run'];

beforeAll(async () => {
  port = await freePort();
  mirror = await new FixtureServer({}).start();
  const base = mirror.url('');
  const { text } = mirroredSources(path.join(work, 'mirror'), base, path.join(copy, 'raw/national/sources.json'));
  writeFileSync(path.join(copy, 'raw/national/sources.json'), text);
  Object.assign(mirror.routes, mirrorRoutes(base, text));
  // The help texts in this process (the same bytes the command prints: a child each took a third of a second).
  const commands = [...(await hcas(['--help'])).stdout.split('\nCommands:\n')[1].matchAll(/^ {2}([a-z-]+)/gm)]
    .map(([, name]) => name)
    .filter((name) => name !== 'help');
  for (const name of commands) helps.set(name, (await hcas([name, '--help'])).stdout);
  const quickStart = await cachedQuickStart();
  firstRun = quickStart.run;
  cpSync(quickStart.sampleDir, path.join(copy, 'raw/sample'), { recursive: true });
  cpSync(quickStart.distApiDir, path.join(copy, 'dist-api'), { recursive: true });
  session = new CommandSession(copy);
}, 900_000);

afterAll(async () => {
  await mirror?.close();
  await session?.close();
  // The copy holds a whole build (about 200 MB) and the help examples' static exports (122,623 files): keep
  // the temp folder from filling up run after run. In memory that takes 2 s; where the run's temp folder is
  // on disk (no usable tmpfs: test/helpers/run-temp.ts) 50 s on a quiet machine here, over 120 s in CI.
  await rm(work, { recursive: true, force: true });
}, 600_000);

describe('the default build, made as the quick start makes it', { timeout: 600_000 }, () => {
  it('every command has examples, and the first of sample and build makes the default build', () => {
    expect([...helps.keys()]).toEqual(
      expect.arrayContaining(['sample', 'build', 'fetch', 'serve', 'get', 'score', 'scores', 'keys', 'export', 'validate']),
    );
    for (const [name, help] of helps) expect(examples(help).length, `hcas ${name} --help has no example`).toBeGreaterThan(0);
    expect(examples(helps.get('sample')!)[0]).toBe('hcas sample && hcas build');
    expect(firstRun.statuses, firstRun.stdout.slice(-2000)).toEqual([0]);
    expect(existsSync(path.join(copy, 'dist-api/hcas.sqlite'))).toBe(true);
  });

  it('shows a progress bar with counts, rate and ETA on a terminal', () => {
    // A redrawn line: carriage return, the task, a bar, and the end-of-line erase.
    const ERASE = '\u001b[K';
    expect(firstRun.stdout).toMatch(/\r {2}synthetic NPPES rows {2}[\d,]+ of [\d,]+ rows {2}\[#* *\] \d+% {2}[\d,]+\/s {2}ETA \d+:\d\d/);
    expect(firstRun.stdout).toContain(ERASE);
  });

  it('writes the rejects beside the output, named after it', () => {
    expect(firstRun.stdout).toMatch(/rejected rows in dist-api\/hcas\.rejects\.csv/);
    expect(readFileSync(path.join(copy, 'dist-api/hcas.rejects.csv'), 'utf8').split('\n')[0]).toBe('source,file,line,kind,code,reason');
    expect(existsSync(path.join(copy, 'dist-api/rejects.csv'))).toBe(false);
  });
});

describe('every example of every help text succeeds on the default build', { timeout: 600_000 }, () => {
  it('runs each one, in the order the help lists them', async () => {
    const failures: string[] = [];
    const seen = new Set(['hcas sample && hcas build']);
    if (!hasCommand('jq', ['--version']))
      failures.push('jq is not installed (apt-get install jq; .ci/run does): help examples pipe into it');
    for (const [name, help] of helps) {
      for (const line of examples(help)) {
        if (seen.has(line)) continue;
        seen.add(line);
        if (/(^|\s)hcas serve\b/.test(line)) {
          const served = await serveExample(line);
          if (served.answered !== 200 || served.code !== 0 || NATIVE_CRASH.test(served.stderr))
            failures.push(`${name}: ${line}\n  answered ${served.answered}, exit ${served.code}\n  ${served.stderr}`);
          continue;
        }
        if (/(^|\s)hcas preview\b/.test(line)) {
          const previewed = await previewExample(line);
          if (previewed.type !== 'application/json; charset=utf-8' || previewed.code !== 0)
            failures.push(`${name}: ${line}\n  served ${previewed.type}, exit ${previewed.code}\n  ${previewed.stderr}`);
          continue;
        }
        const result = await runExample(line);
        if (result.statuses.some((status) => status !== 0))
          failures.push(`${name}: ${line}\n  statuses ${result.statuses.join(' ')}\n  ${result.stderr}`);
      }
    }
    expect(failures).toEqual([]);
    expect(session.stray(), "written outside the commands' own streams").toBe('');
    expect(seen.size).toBeGreaterThan(40);
  });
});

describe('what the default build gives an analyst', { timeout: 600_000 }, () => {
  const buildId = () => {
    const db = new Database(path.join(copy, 'dist-api/hcas.sqlite'), { readonly: true });
    const id = JSON.parse(db.prepare("SELECT value FROM meta WHERE key = 'build_id'").pluck().get() as string) as string;
    db.close();
    return id;
  };

  it('npm start reuses the sample and the build while nothing they depend on changed', async () => {
    const again = await run('hcas sample --if-changed && hcas build --if-changed');
    expect(again.statuses).toEqual([0]);
    expect(again.stdout).toBe(
      `raw/sample already holds this sample (written from the same options, inputs and code); nothing written\n` +
        `dist-api/hcas.sqlite is up to date (build ${buildId()}): its inputs, configuration and code are unchanged; nothing built\n`,
    );
    // The same for a program: one JSON object per line.
    const machine = await run('hcas sample --if-changed --log-format json && hcas build --if-changed --log-format json');
    expect(
      machine.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([
      {
        time: expect.any(String),
        event: 'up_to_date',
        out: path.join(copy, 'raw/sample'),
        message: expect.stringMatching(/^raw\/sample already holds this sample/),
      },
      {
        time: expect.any(String),
        event: 'up_to_date',
        out: path.join(copy, 'dist-api/hcas.sqlite'),
        build_id: buildId(),
        message: expect.stringMatching(/^dist-api\/hcas\.sqlite is up to date/),
      },
    ]);
    expect(JSON.parse(readFileSync(path.join(copy, 'package.json'), 'utf8')).scripts.start).toBe(
      'npm run build && node bin/hcas.js sample --if-changed && node bin/hcas.js build --if-changed && node bin/hcas.js serve --loopback-unmetered',
    );
  });

  it('and builds again when an input, the provider policy or the output changed', async () => {
    const options = { manifest: path.join(copy, 'raw/manifests/sample.json'), out: path.join(copy, 'dist-api/hcas.sqlite') };
    expect(await currentBuild(options)).toEqual({ buildId: buildId(), upToDate: true });
    expect((await currentBuild({ ...options, allowPartialProviders: true })).upToDate).toBe(false);
    const blog = path.join(work, 'blog');
    cpSync(path.join(copy, 'content/blog'), blog, { recursive: true });
    const post = path.join(blog, readdirSync(blog).find((name) => name.endsWith('.md'))!);
    appendFileSync(post, '\nOne more sentence.\n');
    expect((await currentBuild({ ...options, blogDir: blog })).upToDate).toBe(false);
    const sample = path.join(copy, 'raw/sample');
    const key = JSON.parse(readFileSync(path.join(sample, STAMP_FILE), 'utf8')).key as string;
    expect(await sampleIsCurrent(sample, key)).toBe(true);
    expect(await sampleIsCurrent(sample, sampleKey({ kind: 'real', providers: 1, seed: 1 }, []))).toBe(false);
  });

  it('finds the database from any working directory, and --version names it with its build id', async () => {
    const [score, version] = await Promise.all([
      run('hcas score 10001 --fields zip_code,healthscore', { cwd: os.tmpdir() }),
      run('hcas --version', { cwd: os.tmpdir() }),
    ]);
    expect(score.statuses).toEqual([0]);
    expect(score.stdout).toMatch(/^zip_code\thealthscore\n10001\t\d+\n$/);
    expect(version.stdout.split('\n')[1]).toMatch(
      new RegExp(`^database ${path.join(copy, 'dist-api/hcas.sqlite').replace(/[.]/g, '\\.')}: build ${buildId()} of \\d{4}-`),
    );
  });

  it('a large export stops quietly when its reader does', async () => {
    const head = await run('hcas export providers | head -1');
    expect(head).toMatchObject({ stdout: expect.stringMatching(/^npi,first_name,/), stderr: '', statuses: [0, 0] });
  });

  it('an export shows progress on stderr: a line every 5 s when not on a terminal, JSON with --log-format json, none with --quiet', async () => {
    // The reader waits 6 s before reading, so the export is held back long enough for a line to be due.
    const slow = '| (sleep 6; cat > /dev/null)';
    const [lines, json, quiet] = await Promise.all([
      run(`hcas export providers --format ndjson ${slow}`),
      run(`hcas export providers --format ndjson --log-format json ${slow}`),
      run(`hcas export providers --format ndjson --quiet ${slow}`),
    ]);
    expect(lines.statuses).toEqual([0, 0]);
    expect(lines.stderr).toMatch(/^ {2}export providers, [\d,]+ of 250,000 records, \d+%, [\d,]+\/s, ETA \d+:\d\d\n/);
    const events = json.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events[0]).toMatchObject({ event: 'progress', task: 'export providers', unit: 'records', total: 250_000 });
    expect(events.at(-1)).toMatchObject({ event: 'progress_done', task: 'export providers', count: 250_000, total: 250_000 });
    expect(quiet).toMatchObject({ stderr: '', statuses: [0, 0] });
  });
});

describe('the default build served on this Node line', { timeout: 120_000 }, () => {
  it('serves the default database from any working directory with two workers (issue 28)', async () => {
    // The workers read the database setting, not the primary's copy of it: a relative default named a file in
    // the folder the server was started from, and the cluster died with ENOENT.
    const server = new ServerProcess(
      [path.join(copy, 'bin/hcas.js'), 'serve', '--port', '0', '--workers', '2', '--quiet', '--no-limits'],
      { HCAS_STATE: state, REDIS_URL: '', HCAS_DB: '' },
      os.tmpdir(),
    );
    try {
      const { url } = (await server.waitFor((event) => event.event === 'listening', 60_000)) as { url: string };
      expect((await fetch(`${url}/api/v1/health-scores/10001/`)).status).toBe(200);
      server.signal('SIGTERM');
      expect(await server.exited).toBe(0);
    } finally {
      server.stop();
    }
  });

  it('answers, reloads a new file in every worker (renamed into place, then on SIGHUP) and stops with status 0, no native abort', async () => {
    // Node 24.19+ with better-sqlite3 12 aborted at statement teardown (issue #32): reloads close a build's
    // statements in each worker, and shutdown closes the rest, so both are exercised here, on every line CI runs.
    const file = path.join(copy, 'dist-api/hcas.sqlite');
    const server = new ServerProcess(
      ['bin/hcas.js', 'serve', '--port', '0', '--workers', '2', '--quiet', '--no-limits'],
      { HCAS_STATE: state, REDIS_URL: '', HCAS_DB: '' },
      copy,
    );
    try {
      const { url } = (await server.waitFor((event) => event.event === 'listening', 60_000)) as { url: string };
      const buildIdAt = async () => ((await (await fetch(`${url}/api/v1/meta/`)).json()) as { build_id: string }).build_id;
      expect((await fetch(`${url}/api/v1/health-scores/10001/`)).status).toBe(200);
      const next = (buildId: string) => {
        const copyFile = `${file}.next`;
        copyFileSync(file, copyFile);
        const db = new Database(copyFile);
        db.prepare("UPDATE meta SET value = ? WHERE key = 'build_id'").run(JSON.stringify(buildId));
        db.close();
        return copyFile;
      };
      renameSync(next('aaaaaaaaaaaaaaaa'), file);
      await server.waitForCount((event) => event.event === 'reload' && event.build_id === 'aaaaaaaaaaaaaaaa', 2, 30_000);
      expect(await buildIdAt()).toBe('aaaaaaaaaaaaaaaa');
      renameSync(next('bbbbbbbbbbbbbbbb'), file);
      server.signal('SIGHUP');
      await server.waitForCount((event) => event.event === 'reload' && event.build_id === 'bbbbbbbbbbbbbbbb', 2, 30_000);
      expect((await fetch(`${url}/api/v1/health-scores/10001/`)).status).toBe(200);
      server.signal('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(server.stderr).not.toMatch(NATIVE_CRASH);
    } finally {
      server.stop();
    }
  });
});
