import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cachedFolder, type CacheEntry } from './build-cache.ts';
import { linkedBin, ROOT, shell } from './cli.ts';
import { moveSync, tempDir } from './files.ts';
import { copyPackage } from './package-copy.ts';

/** The quick start's first step, on a terminal (`script` gives it one, so progress shows as a bar): a sample, then the build. */
export const QUICK_START = `script -qec 'hcas sample && hcas build' /dev/null`;

/** What the quick start left and printed. */
export interface QuickStart {
  /** Its outputs, `raw/sample` and `dist-api` of the package it ran in: copy them into a package of your own, never write here. */
  sampleDir: string;
  distApiDir: string;
  /** The database and its rejects file, in `distApiDir`. */
  out: string;
  rejectsFile: string;
  /** The command line's exit statuses (bash's PIPESTATUS) and what the terminal received (stdout and stderr share it). */
  run: { statuses: number[]; stdout: string };
  /** The lines the terminal shows once it is done (progress bars redrawn in place leave their last state, or nothing). */
  sampleLines: string[];
  buildLog: string[];
  /** The share of the country's clinicians `hcas sample` said its providers are. */
  sampleFraction: number;
}

/**
 * What the quick start's outputs depend on besides the code and data every cached build is keyed by: the
 * compiled command that runs it. `hcas sample` and `hcas build` load the command line's entry from dist/src/cli
 * and the rest from dist/core, dist/pipeline and dist/producers, which import nothing of src/
 * (test/architecture.test.ts); a change to the API's or the server's code alone no longer makes it again.
 */
const RUNS = ['bin', 'package.json', 'dist/code-fingerprint.txt', 'dist/src/cli', 'dist/core', 'dist/pipeline', 'dist/producers'].map(
  (name) => path.join(ROOT, name),
);

/** The quick start's entry in the build cache, for the Node line `version`. */
export function quickStartEntry(version = process.version): CacheEntry {
  return { kind: `the quick start: hcas sample && hcas build in a copy of the package, on node ${version}`, dependsOn: RUNS };
}

/**
 * The quick start (`hcas sample && hcas build`, the README's and the help texts' first example) run once for
 * every test file that needs the default build or what it printed (per code, data and Node line), in a fresh
 * copy of the package as a user has it after `npm install`; its outputs kept in the build cache. A failed run
 * is not kept: the error says what it printed.
 */
export async function cachedQuickStart(): Promise<QuickStart> {
  // Made on each Node line it runs on: CI runs the quick start's test again on the other supported lines
  // (.ci/run) to see the build made there, not read from the first line's. The line is part of the kind, not
  // of its identity: the cache keeps the newest entry of a kind only, so with the line as identity the last
  // line CI ran (24) left the others' quick starts to be pruned an hour later, and made again by the next run.
  const dir = await cachedFolder(quickStartEntry(), async (into) => {
    const work = tempDir('hcas-quick-start-');
    try {
      const copy = copyPackage(work);
      const run = await shell(QUICK_START, {
        cwd: copy,
        bin: linkedBin(copy),
        timeoutMs: 600_000,
        env: { HCAS_STATE: path.join(work, 'state.sqlite'), HCAS_DB: undefined, REDIS_URL: undefined },
      });
      if (run.statuses.join() !== '0')
        throw new Error(`${QUICK_START} failed (statuses ${run.statuses.join(' ')}):\n${run.stdout.slice(-3000)}`);
      writeFileSync(path.join(into, 'run.json'), JSON.stringify({ statuses: run.statuses, stdout: run.stdout }));
      moveSync(path.join(copy, 'raw/sample'), path.join(into, 'sample'));
      moveSync(path.join(copy, 'dist-api'), path.join(into, 'dist-api'));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
  const run = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as QuickStart['run'];
  const lines = terminalLines(run.stdout);
  const wrote = lines.findIndex((line) => /^wrote \d+ synthetic providers to /.test(line));
  const [, providers, national] =
    /^wrote (\d+) synthetic providers to .* of the ([\d,]+) the real counts and documented densities/.exec(lines[wrote]) ?? [];
  if (providers === undefined) throw new Error(`hcas sample printed no summary line:\n${lines.join('\n')}`);
  const distApiDir = path.join(dir, 'dist-api');
  return {
    sampleDir: path.join(dir, 'sample'),
    distApiDir,
    out: path.join(distApiDir, 'hcas.sqlite'),
    rejectsFile: path.join(distApiDir, 'hcas.rejects.csv'),
    run,
    sampleLines: lines.slice(0, wrote + 1),
    buildLog: lines.slice(wrote + 1),
    sampleFraction: Number(providers) / Number(national.replaceAll(',', '')),
  };
}

/**
 * The lines a terminal shows after receiving `bytes`: a carriage return goes back to the start of the line,
 * ESC [ K erases from there to its end, other escape sequences change no text.
 */
export function terminalLines(bytes: string): string[] {
  const lines: string[] = [];
  let line = '';
  let column = 0;
  for (let i = 0; i < bytes.length; i++) {
    const char = bytes[i];
    if (char === '\n') {
      lines.push(line);
      line = '';
      column = 0;
    } else if (char === '\r') column = 0;
    else if (char === '\u001b') {
      // ESC [ parameters letter: the part after the ESC.
      const sequence = /^\[[0-9;?]*[A-Za-z]/.exec(bytes.slice(i + 1, i + 16))?.[0] ?? '';
      if (sequence.endsWith('K')) line = line.slice(0, column);
      i += sequence.length;
    } else {
      line = line.slice(0, column) + char + line.slice(column + 1);
      column++;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
