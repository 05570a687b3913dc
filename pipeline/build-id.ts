import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pLimit from 'p-limit';
import { EXIT, FixableError } from '../core/errors.ts';
import { PACKAGE_ROOT, packageVersion } from '../core/package.ts';
import { TVI_TIERS } from '../core/tvi-tiers.ts';
import { fileChecksum } from './base/checksum.ts';
import { blogDigest, type BlogPost } from './ingest/blog.ts';
import type { Manifest, ProviderPolicy } from './config/manifest.ts';
import * as scoring from './config/scoring.ts';
import { BANDS } from './config/bands.ts';

/** The scoring configuration a build stores in `meta.scoring` and its id hashes. */
export const SCORING_CONFIG = { ...scoring, bands: BANDS, tvi_tiers: TVI_TIERS };

/** What a build's output depends on, besides the pipeline's code. */
export interface BuildInputs {
  /** SHA-256 of each source file of the manifest, in its order (null for a file that is absent). */
  sourceChecksums: ReadonlyArray<string | null>;
  /** The provider policy in force (the manifest's, or `--allow-partial-providers`). */
  providers: ProviderPolicy;
  blogPosts: readonly BlogPost[];
}

/**
 * The build id: it changes when any input, the provider policy, the scoring configuration, the package
 * version or the pipeline code changes, and only then. So an output whose id equals the id its inputs would
 * give now is what a new build would write (`hcas build --if-changed`).
 */
export function buildId(inputs: BuildInputs): string {
  const identity = {
    sources: inputs.sourceChecksums,
    scoringConfig: SCORING_CONFIG,
    version: packageVersion(),
    code: codeFingerprint(),
    blog: blogDigest(inputs.blogPosts),
    providers: inputs.providers,
  };
  return createHash('sha256').update(canonicalJson(identity)).digest('hex').slice(0, 16);
}

/**
 * JSON with every object's keys sorted. The scoring configuration is a module namespace, whose keys come in
 * declaration order when vitest runs the TypeScript and in alphabetical order under Node's own loader: the
 * same configuration must give the same id in tests as in `hcas build`.
 */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/** The size and SHA-256 of every source file of a manifest (two at a time: disks prefer it to all at once). */
export function sourceChecksums(manifest: Manifest): Promise<Array<{ sha256: string; bytes: number } | null>> {
  const limit = pLimit(2);
  return Promise.all(manifest.sources.map((s) => limit(() => (existsSync(s.path) ? fileChecksum(s.path) : Promise.resolve(null)))));
}

/**
 * SHA-256 over the build's TypeScript sources (pipeline/ and core/, found from the package root), so a code
 * change gives a new build id (and ETags), and the same code gives the same id whether the TypeScript runs
 * (tests) or the JavaScript compiled from it (bin/hcas.js).
 */
export function codeFingerprint(): string {
  const hash = createHash('sha256');
  for (const folder of ['core', 'pipeline']) {
    const root = path.join(PACKAGE_ROOT, folder);
    for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .sort()) {
      hash.update(`${folder}/${file}`).update(readFileSync(path.join(root, file)));
    }
  }
  return hash.digest('hex');
}

/** Where `npm run build` records the fingerprint of the sources it compiled into dist/ (bin/stamp-dist.js). */
export const COMPILED_FINGERPRINT_FILE = path.join(PACKAGE_ROOT, 'dist', 'code-fingerprint.txt');

/** Records that dist/ holds the current sources, compiled: run by `npm run build` right after tsc. */
export function stampCompiledCode(): void {
  writeFileSync(COMPILED_FINGERPRINT_FILE, `${codeFingerprint()}\n`);
}

/**
 * Refuses (exit 3) to run compiled code older than its sources. The build id hashes the TypeScript sources,
 * so that tests (which run them) and `hcas build` (which runs dist/) agree; a dist/ compiled from other
 * sources would build with the old code under the id of the new. The TypeScript running itself is never stale.
 */
export function refuseStaleCompiledCode(command: string, running: string = import.meta.filename): void {
  if (!running.startsWith(path.join(PACKAGE_ROOT, 'dist') + path.sep)) return;
  const stamped = existsSync(COMPILED_FINGERPRINT_FILE) ? readFileSync(COMPILED_FINGERPRINT_FILE, 'utf8').trim() : undefined;
  if (stamped === codeFingerprint()) return;
  throw new FixableError(
    `the compiled code in dist/ is older than its sources in pipeline/ and core/ (changed since the last \`npm run build\`): ` +
      `run \`npm run build\`, then \`hcas ${command}\` again (it would run the old code under a build id that names the new)`,
    EXIT.data,
  );
}
