import { createHash } from 'node:crypto';
import { packageVersion } from '../../core/package.ts';
import { TVI_TIERS } from '../../core/tvi-tiers.ts';
import { codeFingerprint } from '../base/code.ts';
import { blogDigest, type BlogPost } from '../ingest/blog.ts';
import type { ProviderPolicy } from '../config/manifest.ts';
import * as scoring from '../config/scoring.ts';
import { BANDS } from '../config/bands.ts';

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
