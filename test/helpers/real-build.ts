import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from '../../pipeline/run/index.ts';
import { DEFAULT_PROVIDERS, DEFAULT_SEED } from '../../producers/sample/index.ts';
import { writeRealSample } from '../../producers/sample/real-sample.ts';
import { type CacheEntry, cachedFolder } from './build-cache.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A build's database and its rejects file. */
export interface MadeBuild {
  out: string;
  rejectsFile: string;
}

/**
 * A build made once for every test file (and run) with the same entry, code and data: `make` writes
 * `hcas.sqlite` (and its rejects file) into the folder it is handed.
 */
export async function cachedOutput(entry: CacheEntry | string, make: (dir: string) => Promise<void>): Promise<MadeBuild> {
  const dir = await cachedFolder(typeof entry === 'string' ? { kind: entry } : entry, make);
  return { out: path.join(dir, 'hcas.sqlite'), rejectsFile: path.join(dir, 'hcas.rejects.csv') };
}

/**
 * Builds a manifest once for every test file that needs it (the real-data build takes about a minute on this
 * machine; several test files read it).
 */
export async function cachedBuild(manifest: string, options: { allowPartialProviders?: boolean } = {}): Promise<MadeBuild> {
  const kind = `the build of ${readFileSync(manifest, 'utf8')} with ${JSON.stringify(options)}`;
  return cachedOutput(kind, (into) => build({ manifest, out: path.join(into, 'hcas.sqlite'), ...options }).then(() => {}));
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
  const dir = await cachedFolder({ kind: 'the default build' }, async (into) => {
    const root = path.join(into, 'sample');
    const sample = await writeRealSample({ outDir: root, manifest: publicManifest, providers: DEFAULT_PROVIDERS, seed: DEFAULT_SEED });
    const log: string[] = [];
    await build({ manifest, root, out: path.join(into, 'hcas.sqlite'), log: (line) => log.push(line) });
    writeFileSync(path.join(into, 'made.json'), JSON.stringify({ log, sampleFraction: sample.sampleFraction }));
  });
  const made = JSON.parse(readFileSync(path.join(dir, 'made.json'), 'utf8')) as Pick<DefaultBuild, 'log' | 'sampleFraction'>;
  return { out: path.join(dir, 'hcas.sqlite'), rejectsFile: path.join(dir, 'hcas.rejects.csv'), ...made };
}
