import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from '../../pipeline/run/index.ts';
import { DEFAULT_PROVIDERS, DEFAULT_SEED } from '../../producers/sample/index.ts';
import { writeRealSample } from '../../producers/sample/real-sample.ts';
import { SHARED_DATA } from './files.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Hash of every file under `dir` (recursively), in name order. */
function hashTree(hash: ReturnType<typeof createHash>, dir: string): void {
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) hashTree(hash, full);
    else hash.update(name).update(readFileSync(full));
  }
}

/** What a build made here depends on besides its own identity: the code that makes it and the data it reads. */
const MADE_FROM = [
  ...['pipeline', 'producers', 'content', 'core', 'raw/public', 'raw/manifests'].map((dir) => path.join(ROOT, dir)),
  SHARED_DATA,
];

/**
 * A folder made once for every test file that needs it, kept in the temp folder under a hash of `identity`,
 * of the code that makes it and of the data it reads: test files run in parallel processes, so the first one
 * makes it (holding a lock directory) and the others wait for it; a later run with unchanged code and data
 * reuses it.
 */
async function cachedFolder(identity: string, make: (dir: string) => Promise<void>): Promise<string> {
  const hash = createHash('sha256').update(identity);
  for (const dir of MADE_FROM) if (existsSync(dir)) hashTree(hash, dir);
  const dir = path.join(os.tmpdir(), 'hcas-test-builds', hash.digest('hex').slice(0, 16));
  const done = path.join(dir, 'done');
  if (existsSync(done)) return dir;
  mkdirSync(path.dirname(dir), { recursive: true });
  const lock = `${dir}.lock`;
  for (let waited = 0; ; waited += 500) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(done)) return dir;
      // A lock older than ten minutes was left by a crashed run.
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (waited > 600_000 || (since !== undefined && Date.now() - since > 600_000)) rmSync(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    if (existsSync(done)) return dir;
    const staging = `${dir}.making-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    await make(staging);
    writeFileSync(path.join(staging, 'done'), '');
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
    return dir;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** A build's database and its rejects file. */
export interface MadeBuild {
  out: string;
  rejectsFile: string;
}

/**
 * A build made once for every test file (and run) with the same `identity`, code and data: `make` writes
 * `hcas.sqlite` (and its rejects file) into the folder it is handed.
 */
export async function cachedOutput(identity: string, make: (dir: string) => Promise<void>): Promise<MadeBuild> {
  const dir = await cachedFolder(identity, make);
  return { out: path.join(dir, 'hcas.sqlite'), rejectsFile: path.join(dir, 'hcas.rejects.csv') };
}

/**
 * Builds a manifest once for every test file that needs it (the real-data build takes about a minute on this
 * machine; several test files read it).
 */
export async function cachedBuild(manifest: string, options: { allowPartialProviders?: boolean } = {}): Promise<MadeBuild> {
  const identity = readFileSync(manifest, 'utf8') + JSON.stringify(options);
  return cachedOutput(identity, (into) => build({ manifest, out: path.join(into, 'hcas.sqlite'), ...options }).then(() => {}));
}

/** The default build as `npm start` makes it, and what its making said. */
export interface DefaultBuild extends MadeBuild {
  /** The build log, line by line. */
  log: string[];
  /** The share of the country's clinicians `hcas sample` declared its providers to be. */
  sampleFraction: number;
}

/**
 * The default build as `npm start` makes it, once for every test file that reads it: `hcas sample`'s
 * defaults (250,000 synthetic providers, seed 20260101) over the bundled real data, then
 * raw/manifests/sample.json.
 */
export async function cachedDefaultBuild(): Promise<DefaultBuild> {
  const manifest = path.join(ROOT, 'raw/manifests/sample.json');
  const publicManifest = path.join(ROOT, 'raw/manifests/public.json');
  const identity = ['default build', readFileSync(manifest, 'utf8'), readFileSync(publicManifest, 'utf8')].join('\n');
  const dir = await cachedFolder(identity, async (into) => {
    const root = path.join(into, 'sample');
    const sample = await writeRealSample({ outDir: root, manifest: publicManifest, providers: DEFAULT_PROVIDERS, seed: DEFAULT_SEED });
    const log: string[] = [];
    await build({ manifest, root, out: path.join(into, 'hcas.sqlite'), log: (line) => log.push(line) });
    writeFileSync(path.join(into, 'made.json'), JSON.stringify({ log, sampleFraction: sample.sampleFraction }));
  });
  const made = JSON.parse(readFileSync(path.join(dir, 'made.json'), 'utf8')) as Pick<DefaultBuild, 'log' | 'sampleFraction'>;
  return { out: path.join(dir, 'hcas.sqlite'), rejectsFile: path.join(dir, 'hcas.rejects.csv'), ...made };
}
