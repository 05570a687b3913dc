import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tempDir } from './files.ts';
import { lastingTempDir } from './run-temp.ts';
import { hasCommand } from './services.ts';

/**
 * Podman for the container tests, as this kind of machine lets it run (deploy/README.md):
 * - its own image store under the temp folder the run started with (`hcas-test-podman/`), so the base image
 *   and the build's layers are kept between runs, like the build cache, and nothing of anyone else's store
 *   is touched: every container, volume and network the tests make is named `hcas-test-...` and removed;
 * - runc (for the sandbox's hybrid cgroups), and no default ulimits: podman's default open-file limit for a
 *   container is above the sandbox's hard limit, which it may not raise;
 * - cgroupfs and a file event log, for there is no systemd: so podman's timer never runs a HEALTHCHECK, and
 *   the tests run it with `podman healthcheck run` as the timer would.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const STORE = path.join(lastingTempDir(), 'hcas-test-podman');
/** What the container tests need: podman, root (debootstrap, and rootful podman's networks), debootstrap. */
export const PODMAN_MISSING = [
  !hasCommand('podman', ['--version']) && 'podman',
  !hasCommand('debootstrap', ['--version']) && !existsSync('/usr/sbin/debootstrap') && 'debootstrap',
  process.getuid?.() !== 0 && 'root',
].filter((missing): missing is string => Boolean(missing));

let configured: NodeJS.ProcessEnv | undefined;

/** The environment every podman command of the tests runs with: the configuration files above. */
export function podmanEnv(): NodeJS.ProcessEnv {
  if (configured) return configured;
  mkdirSync(STORE, { recursive: true });
  const containers = path.join(STORE, 'containers.conf');
  const storage = path.join(STORE, 'storage.conf');
  // Written whole and renamed into place: test files in parallel processes run podman while another writes.
  const write = (file: string, text: string) => {
    writeFileSync(`${file}.${process.pid}`, text);
    renameSync(`${file}.${process.pid}`, file);
  };
  write(
    containers,
    [
      '[containers]',
      'default_ulimits = []',
      '[engine]',
      'runtime = "runc"',
      'cgroup_manager = "cgroupfs"',
      'events_logger = "file"',
      `tmp_dir = "${path.join(STORE, 'libpod-tmp')}"`,
      '',
    ].join('\n'),
  );
  write(
    storage,
    ['[storage]', 'driver = "overlay"', `graphroot = "${path.join(STORE, 'storage')}"`, `runroot = "${path.join(STORE, 'run')}"`, ''].join(
      '\n',
    ),
  );
  configured = { ...process.env, CONTAINERS_CONF: containers, CONTAINERS_STORAGE_CONF: storage };
  return configured;
}

/** Runs `podman ARGS` (or another command, with `command`) with the tests' configuration; resolves with its stdout. */
export function podman(args: string[], options: { command?: string; timeoutMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      options.command ?? 'podman',
      args,
      { cwd: ROOT, env: podmanEnv(), timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${options.command ?? 'podman'} ${args.join(' ')}: ${stderr.trim() || error.message}`));
        else resolve(stdout.trim());
      },
    );
  });
}

/** The exit code of `podman ARGS` (0 or not), without throwing. */
export function podmanStatus(args: string[]): Promise<number> {
  return podman(args).then(
    () => 0,
    () => 1,
  );
}

/**
 * Removes the containers, volumes and networks of test processes that are gone (`hcas-test-PID-*`, testName):
 * a run killed mid-way never reaches its afterAll, and its compose stack kept running (two found 10 hours on).
 * A live process's, another run's beside this one, are left alone. Returns the names removed.
 */
export async function removeOrphans(): Promise<string[]> {
  const orphans = async (list: string[]) => (await podman(list)).split('\n').filter((name) => name !== '' && !testProcessAlive(name));
  const removed: string[] = [];
  const remove = async (names: string[], rm: (name: string) => string[]) => {
    for (const name of names) {
      const status = await podmanStatus(rm(name));
      if (status === 0) removed.push(name);
    }
  };
  await remove(await orphans(['ps', '--all', '--format', '{{.Names}}']), (name) => ['rm', '--force', '--volumes', '--time', '2', name]);
  await remove(await orphans(['volume', 'ls', '--format', '{{.Name}}']), (name) => ['volume', 'rm', '--force', name]);
  await remove(await orphans(['network', 'ls', '--format', '{{.Name}}']), (name) => ['network', 'rm', '--force', name]);
  return removed;
}

/** False only for a test's name (`hcas-test-PID-...`) whose process no longer runs. */
function testProcessAlive(name: string): boolean {
  const pid = Number(/^hcas-test-(\d+)-/.exec(name)?.[1] ?? Number.NaN);
  if (!Number.isInteger(pid) || pid <= 0) return true; // not a test's: never ours to remove
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

/** A name for something a test makes in podman: `hcas-test-`, the process and `what`, so parallel runs never meet. */
export function testName(what: string): string {
  return `hcas-test-${process.pid}-${what}`;
}

/** The image names the container tests build and keep (their layers are the next run's cache). */
export const IMAGES = {
  base: `localhost/hcas-test-node:${readFileSync(path.join(ROOT, '.nvmrc'), 'utf8').trim()}`,
  app: 'localhost/hcas-test-image:latest',
  tools: 'localhost/hcas-test-tools:latest',
};

/**
 * How long the images may take to make. A machine's first run makes the base and the images: about 6
 * minutes on a quiet machine, more than 20 beside three other test suites (load average 17 on 2 cores,
 * measured). This only bounds a build that hangs; a later run takes about 45 s.
 */
export const BUILD_TIMEOUT_MS = 45 * 60_000;

/** The images one run built: ids, not tags (a run in another working tree may tag its own build meanwhile). */
export interface BuiltImages {
  /** deploy/Dockerfile's last stage. */
  app: string;
  /** Its `build` stage (the compose file's tools). */
  tools: string;
}

/**
 * The image of deploy/Dockerfile and its `build` target, built on the base that deploy/local-base.sh makes.
 * Test files run in parallel, so one builds at a time; the images one file of the run built are the next
 * file's (their ids are kept in the run's temp folder), and a later run finds the layers made: a build of
 * unchanged sources only checks its inputs (about 45 s here).
 */
export function buildImages(): Promise<BuiltImages> {
  return withBuildLock(async () => {
    const builtThisRun = path.join(os.tmpdir(), 'hcas-test-images.json');
    if (existsSync(builtThisRun))
      return { ...(JSON.parse(readFileSync(builtThisRun, 'utf8')) as BuiltImages), baseSeconds: 0, buildSeconds: 0 };
    await removeOrphans();
    const started = Date.now();
    await podman([path.join(ROOT, 'deploy/local-base.sh'), '--tag', IMAGES.base], { command: 'bash', timeoutMs: BUILD_TIMEOUT_MS });
    const baseSeconds = (Date.now() - started) / 1000;
    // Images built from this very context before (a previous run's): podman would find every layer cached
    // and make the same images, after hashing the context step by step (about 50 s of CPU for the two).
    const tag = `context-${await contextKey()}`;
    const kept = await keptImages(tag);
    if (kept) {
      writeFileSync(builtThisRun, JSON.stringify(kept));
      console.log(
        `container images: the base ${baseSeconds.toFixed(0)} s (deploy/local-base.sh), hcas's kept from a build of the same context (${tag})`,
      );
      return kept;
    }
    const home = npmHome();
    const ids: string[] = [];
    try {
      for (const [target, tag] of [
        [undefined, IMAGES.app],
        ['build', IMAGES.tools],
      ] as const) {
        const idFile = path.join(tempDir('hcas-image-id-'), 'id');
        await podman(
          [
            'build',
            // The Docker image format keeps HEALTHCHECK (the OCI format has no such field, and podman drops it).
            '--format',
            'docker',
            '--build-arg',
            `BASE_IMAGE=${IMAGES.base}`,
            // Docker reads deploy/Dockerfile.dockerignore beside the Dockerfile; this podman needs it named.
            '--ignorefile',
            'deploy/Dockerfile.dockerignore',
            ...(home ? ['--volume', `${home}:/root`] : []),
            ...(target ? ['--target', target] : []),
            '--iidfile',
            idFile,
            '-f',
            'deploy/Dockerfile',
            '-t',
            tag,
            '.',
          ],
          { timeoutMs: BUILD_TIMEOUT_MS },
        );
        // The id file says `sha256:HEX`, `podman image inspect` HEX: one form, so a kept image's id is the built one's.
        ids.push(
          readFileSync(idFile, 'utf8')
            .trim()
            .replace(/^sha256:/, ''),
        );
        rmSync(path.dirname(idFile), { recursive: true, force: true });
      }
    } finally {
      if (home) rmSync(home, { recursive: true, force: true });
    }
    // Layers no tag leads to any more (an older build's): kept a day for a run on another branch, then removed.
    await podman(['image', 'prune', '--force', '--filter', 'until=24h']);
    const built = { app: ids[0], tools: ids[1] };
    await keepImages(built, tag);
    writeFileSync(builtThisRun, JSON.stringify(built));
    const buildSeconds = (Date.now() - started) / 1000 - baseSeconds;
    console.log(`container images: the base ${baseSeconds.toFixed(0)} s (deploy/local-base.sh), hcas's ${buildSeconds.toFixed(0)} s`);
    return built;
  });
}

/** The repositories of the two images, without their tags. */
const REPOSITORIES = { app: IMAGES.app.replace(/:[^:/]+$/, ''), tools: IMAGES.tools.replace(/:[^:/]+$/, '') };

/**
 * What the images are made from: the base image's id, deploy/Dockerfile and its ignore file, and every file
 * its COPY lines (those from the context) name, by path and content. More than the build context holds (the
 * ignore file's exclusions are hashed too), never less: a change anywhere in it means a new build.
 */
async function contextKey(): Promise<string> {
  const hash = createHash('sha256');
  hash.update(await podman(['image', 'inspect', '--format', '{{.Id}}', IMAGES.base]));
  const dockerfile = readFileSync(path.join(ROOT, 'deploy/Dockerfile'), 'utf8');
  hash.update(dockerfile).update(readFileSync(path.join(ROOT, 'deploy/Dockerfile.dockerignore')));
  const sources = [...dockerfile.matchAll(/^COPY\s+(.+)$/gm)]
    .map(([, args]) => args.split(/\s+/))
    .filter((args) => !args.some((arg) => arg.startsWith('--from')))
    .flatMap((args) => args.filter((arg) => !arg.startsWith('--')).slice(0, -1));
  const add = (relative: string): void => {
    const full = path.join(ROOT, relative);
    if (statSync(full).isDirectory()) for (const name of readdirSync(full).sort()) add(path.join(relative, name));
    else hash.update(`\0${relative}\0`).update(readFileSync(full));
  };
  for (const source of [...new Set(sources)].sort()) add(source);
  return hash.digest('hex').slice(0, 16);
}

/** The ids of both images tagged `tag`, when both are in the store. */
async function keptImages(tag: string): Promise<BuiltImages | undefined> {
  const ids = await Promise.all(
    [REPOSITORIES.app, REPOSITORIES.tools].map((repository) =>
      podman(['image', 'inspect', '--format', '{{.Id}}', `${repository}:${tag}`]).catch(() => undefined),
    ),
  );
  return ids[0] && ids[1] ? { app: ids[0], tools: ids[1] } : undefined;
}

/** Tags the images just built with their context's `tag`, and drops the context tags of older builds (their layers are then pruned). */
async function keepImages(built: BuiltImages, tag: string): Promise<void> {
  for (const [repository, id] of [
    [REPOSITORIES.app, built.app],
    [REPOSITORIES.tools, built.tools],
  ]) {
    const tags = (await podman(['images', '--format', '{{.Repository}}:{{.Tag}}', '--filter', `reference=${repository}`])).split('\n');
    const older = tags.filter((name) => /:context-[0-9a-f]{16}$/.test(name) && name !== `${repository}:${tag}`);
    // `untag IMAGE NAME` drops that one name (without NAME, podman would drop every name of the image).
    for (const name of older) await podman(['untag', name, name]);
    await podman(['tag', id, `${repository}:${tag}`]);
  }
}

/**
 * The build's `npm ci` trusts the certificate authorities this machine trusts (Node's NODE_EXTRA_CA_CERTS,
 * else Debian's bundle): a machine whose traffic passes a proxy that inspects TLS has that proxy's authority
 * only there. A home folder for root with an .npmrc naming that file, mounted over /root for the build's RUN
 * steps alone: a mount is in no layer, so the image is what it would be anywhere else.
 */
function npmHome(): string | undefined {
  const bundle = [process.env.NODE_EXTRA_CA_CERTS, '/etc/ssl/certs/ca-certificates.crt'].find((file) => file && existsSync(file));
  if (!bundle) return undefined;
  const home = tempDir('hcas-npm-home-');
  copyFileSync(bundle, path.join(home, 'ca.crt'));
  writeFileSync(path.join(home, '.npmrc'), 'cafile=/root/ca.crt\n');
  return home;
}

/**
 * Runs `work` while no other test process builds in the store (a lock folder); a lock older than BUILD_TIMEOUT_MS
 * was left by a run that was killed.
 */
export async function withBuildLock<T>(work: () => Promise<T>): Promise<T> {
  const lock = path.join(STORE, 'build.lock');
  mkdirSync(STORE, { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > BUILD_TIMEOUT_MS) rmSync(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
