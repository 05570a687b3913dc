import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from '../../pipeline/run/index.ts';
import { type CacheEntry, cachedFolder } from './build-cache.ts';
import { cachedQuickStart } from './quick-start.ts';

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
 * The default build as `npm start` makes it, once for every test file that reads it: the quick start's
 * `hcas sample && hcas build` in a copy of the package (test/helpers/quick-start.ts), which runs `hcas
 * sample`'s defaults (250,000 synthetic providers, seed 20260101) over the bundled real data, then
 * raw/manifests/sample.json.
 */
export async function cachedDefaultBuild(): Promise<DefaultBuild> {
  const made = await cachedQuickStart();
  return { out: made.out, rejectsFile: made.rejectsFile, log: made.buildLog, sampleFraction: made.sampleFraction };
}
