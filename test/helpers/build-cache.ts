import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SHARED_DATA } from './files.ts';
import { lastingTempDir } from './run-temp.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Where builds made for the tests are kept between runs: one folder per code-and-data key, one entry per build in it. */
export function cacheRoot(): string {
  return path.join(lastingTempDir(), 'hcas-test-builds');
}

/** What a build made here depends on besides its own identity: the code that makes it and the data it reads. */
const MADE_FROM = [
  // src/widget: the build copies the widget's script beside the database.
  ...['pipeline', 'producers', 'content', 'core', 'raw/public', 'raw/manifests', 'src/widget'].map((dir) => path.join(ROOT, dir)),
  SHARED_DATA,
];

/** Code-and-data keys kept besides the current one (the newest used), for switching between branches. */
const KEEP_OTHER_KEYS = 2;
/** A folder used more recently than this may belong to a run in progress (another working tree): never removed. */
const IN_USE_MS = 60 * 60_000;

/** Hash of every file under `dir` (recursively, or the file itself), in name order. */
function hashTree(hash: ReturnType<typeof createHash>, dir: string): void {
  if (!statSync(dir).isDirectory()) {
    hash.update(path.basename(dir)).update(readFileSync(dir));
    return;
  }
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) hashTree(hash, full);
    else hash.update(name).update(readFileSync(full));
  }
}

function hashOf(identity: string, trees: readonly string[]): string {
  const hash = createHash('sha256').update(identity);
  for (const tree of trees) if (existsSync(tree)) hashTree(hash, tree);
  return hash.digest('hex').slice(0, 16);
}

let currentKey: string | undefined;

/** The code-and-data key of this working tree: computed once per process (nothing it hashes changes during a run). */
function codeDataKey(): string {
  currentKey ??= hashOf('code and data', MADE_FROM);
  return currentKey;
}

/** Marks a folder used now: pruning keeps the folders used last. */
function touch(dir: string): void {
  const now = new Date();
  utimesSync(dir, now, now);
}

/** What a cached folder is (one entry per kind is kept) and what, besides code and data, it is made from. */
export interface CacheEntry {
  /** What it is, in words: the same for every version of it (`the public build with cms_hospitals edited`). */
  kind: string;
  /** What this version is made from besides `kind` (the edited file's hash, the options). */
  identity?: string;
  /** Files or folders it also depends on, beyond the code and data every entry is keyed by. */
  dependsOn?: readonly string[];
}

/**
 * A folder made once for every test file that needs it, kept under the code-and-data key and a hash of the
 * entry: test files run in parallel processes, so the first one makes it (holding a lock directory) and the
 * others wait for it; a later run with unchanged code and data reuses it.
 */
export async function cachedFolder(entry: CacheEntry, make: (dir: string) => Promise<void>): Promise<string> {
  const group = path.join(cacheRoot(), codeDataKey());
  const dir = path.join(group, entryName(entry));
  const done = path.join(dir, 'done');
  mkdirSync(group, { recursive: true });
  touch(group);
  if (existsSync(done)) return used(dir);
  const lock = `${dir}.lock`;
  for (let waited = 0; ; waited += 500) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(done)) return used(dir);
      // A lock older than ten minutes was left by a crashed run.
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (waited > 600_000 || (since !== undefined && Date.now() - since > 600_000)) rmSync(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    if (existsSync(done)) return used(dir);
    const staging = `${dir}.making-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    await make(staging);
    writeFileSync(path.join(staging, 'done'), '');
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
    return used(dir);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** An entry's folder name, KIND-VERSION: pruning keeps the newest version of each kind. */
export function entryName(entry: CacheEntry): string {
  return `${hashOf(entry.kind, [])}-${hashOf(`${entry.kind}\n${entry.identity ?? ''}`, entry.dependsOn ?? [])}`;
}

function used(dir: string): string {
  touch(dir);
  return dir;
}

/**
 * Removes what no run will read again: the folders of other code-and-data keys but the newest few, and in
 * the current key's folder every entry but the newest of its kind (an older one was made from an identity or
 * dependencies since changed). Never a folder used within the last hour, which a run in another working tree
 * may be reading or making. Returns what it removed.
 */
export function pruneBuildCache({ root = cacheRoot(), current = path.join(root, codeDataKey()), now = Date.now() } = {}): string[] {
  if (!existsSync(root)) return [];
  const stale = (dir: string) => now - statSync(dir).mtimeMs > IN_USE_MS;
  const newestFirst = (dir: string) =>
    readdirSync(dir)
      .map((name) => path.join(dir, name))
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  const removed = newestFirst(root)
    .filter((dir) => dir !== current)
    .slice(KEEP_OTHER_KEYS);
  if (existsSync(current)) {
    const kinds = new Set<string>();
    for (const entry of newestFirst(current)) {
      // KIND-VERSION; anything else is the lock or staging folder of an entry being made (or left by a crash).
      const kind = /^([0-9a-f]{16})-[0-9a-f]{16}$/.exec(path.basename(entry))?.[1];
      if (kind === undefined || kinds.has(kind)) removed.push(entry);
      if (kind !== undefined) kinds.add(kind);
    }
  }
  const gone = removed.filter(stale);
  for (const dir of gone) rmSync(dir, { recursive: true, force: true });
  return gone;
}

/** Vitest's global setup: prunes the cache before the run, so the temp folder holds the builds of a few states of the code at most. */
export default function pruneBeforeRun(): void {
  pruneBuildCache();
}
