import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from '../../pipeline/run/index.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Hash of every file under `dir` (recursively), in name order. */
function hashTree(hash: ReturnType<typeof createHash>, dir: string): void {
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) hashTree(hash, full);
    else hash.update(name).update(readFileSync(full));
  }
}

/**
 * Builds a manifest once for every test file that needs it, and keeps the result in the temp folder under a
 * hash of the manifest and of the pipeline's code: test files run in parallel processes, so the first one
 * builds (holding a lock directory) and the others wait for it; a later run with unchanged code reuses it.
 * The real-data build takes about a minute on this machine; five test files read it.
 */
export async function cachedBuild(
  manifest: string,
  options: { allowPartialProviders?: boolean } = {},
): Promise<{ out: string; rejectsFile: string }> {
  const hash = createHash('sha256').update(readFileSync(manifest)).update(JSON.stringify(options));
  for (const dir of ['pipeline', 'content', 'core']) if (existsSync(path.join(ROOT, dir))) hashTree(hash, path.join(ROOT, dir));
  const dir = path.join(os.tmpdir(), 'hcas-test-builds', hash.digest('hex').slice(0, 16));
  const out = path.join(dir, 'hcas.sqlite');
  const result = { out, rejectsFile: path.join(dir, 'hcas.rejects.csv') };
  if (existsSync(out)) return result;
  mkdirSync(path.dirname(dir), { recursive: true });
  const lock = `${dir}.lock`;
  for (let waited = 0; ; waited += 500) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(out)) return result;
      // A lock older than ten minutes was left by a crashed run.
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (waited > 600_000 || (since !== undefined && Date.now() - since > 600_000)) rmSync(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    if (existsSync(out)) return result;
    const staging = `${dir}.building-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    await build({ manifest, out: path.join(staging, 'hcas.sqlite'), ...options });
    renameSync(staging, dir);
    return result;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
