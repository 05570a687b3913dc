import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { loadManifest, sourceChecksums, type Manifest, type ProviderPolicy } from '../config/manifest.ts';
import { readBlogPosts, type BlogPost } from '../ingest/blog.ts';
import { LAYOUTS } from '../layouts/index.ts';
import { buildId } from './build-id.ts';
import { rejectsFileOf } from './output.ts';

/** What says which build to make: the manifest and where its files are, the blog, the provider policy. */
export interface PlanOptions {
  manifest: string;
  /** Folder the manifest's paths are relative to, instead of its own `root`. */
  root?: string;
  /** Folder of the blog's Markdown posts (default `content/blog/`). */
  blogDir?: string;
  /** Publish scores without a provider component when provider coverage is partial (the manifest's `providers.on_partial_coverage`). */
  allowPartialProviders?: boolean;
}

/** A build's inputs, each read once: `hcas build --if-changed` decides on them and the build then uses them. */
export interface BuildPlan {
  manifest: Manifest;
  blogPosts: BlogPost[];
  /** The manifest's provider policy, unless `--allow-partial-providers` asks to omit the component. */
  policy: ProviderPolicy;
  /** Size and SHA-256 of each source of the manifest, in its order (null: absent), computed beside the first stages. */
  checksums: Promise<Array<{ sha256: string; bytes: number } | null>>;
}

/** Reads the manifest and the blog's posts (a bad post fails here, before the long stages) and starts the checksums. */
export function planBuild(options: PlanOptions): BuildPlan {
  const manifest = loadManifest(options.manifest, new Set(LAYOUTS.keys()), options.root);
  const blogPosts = readBlogPosts(options.blogDir);
  const policy: ProviderPolicy = options.allowPartialProviders
    ? { ...manifest.providers, onPartialCoverage: 'omit_component' }
    : manifest.providers;
  const checksums = sourceChecksums(manifest);
  // Awaited when the id is needed; a failure surfaces there, not as an unhandled rejection meanwhile.
  checksums.catch(() => {});
  return { manifest, blogPosts, policy, checksums };
}

/** The id a build of this plan has (the checksums of every input included). */
export async function planId(plan: BuildPlan): Promise<string> {
  const sums = await plan.checksums;
  return buildId({ sourceChecksums: sums.map((sum) => sum?.sha256 ?? null), providers: plan.policy, blogPosts: plan.blogPosts });
}

/**
 * The id a build of these options would have now, and whether `out` already holds it: then its inputs,
 * provider policy, configuration and the pipeline's code are unchanged since it was built, and a new build
 * would write the same file. Costs a checksum of every input (about a second for the default build); pass the
 * plan on to `build` so it is not read again.
 */
export async function currentBuild(
  options: PlanOptions & { out: string },
  plan: BuildPlan = planBuild(options),
): Promise<{ buildId: string; upToDate: boolean }> {
  const id = await planId(plan);
  const { out } = options;
  return { buildId: id, upToDate: existsSync(out) && storedBuildId(out) === id && existsSync(rejectsFileOf(out)) };
}

/** The build id stored in an output file, or null when it is not a readable build. */
function storedBuildId(file: string): string | null {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare("SELECT value FROM meta WHERE key = 'build_id'").get() as { value: string } | undefined;
      return row ? (JSON.parse(row.value) as string) : null;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}
