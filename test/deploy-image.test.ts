import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/files.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { bodyJson, request } from './helpers/http.ts';
import { freePort } from './helpers/nginx.ts';
import { BUILD_TIMEOUT_MS, buildImages, IMAGES, PODMAN_MISSING, podman, podmanStatus, testName } from './helpers/podman.ts';
import { serviceMissing } from './helpers/services.ts';

/**
 * deploy/Dockerfile built and run (podman, on a base made without a registry: deploy/local-base.sh): the image
 * serves a database mounted read-only and counts calls in a named volume at /state, passes its own HEALTHCHECK,
 * makes a key with `hcas keys create` inside the container, and stops on SIGTERM with exit code 0. What is in
 * it is checked too: the user, no compiler, no development dependency, its size.
 */

const root = path.resolve(import.meta.dirname, '..');
const packageJson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const DOCKERFILE = readFileSync(path.join(root, 'deploy/Dockerfile'), 'utf8');

/**
 * The Dockerfile's own `docker run` line (its header) as podman arguments: `$PWD/data` is the test's folder,
 * the named volume the test's, the published port a free one on 127.0.0.1, and the image the one `docker
 * build` tags, as the header's build line names it. An option the test does not know fails it.
 */
function dockerRunArguments(place: { dir: string; image: string; port: number; volume: string }): string[] {
  const build = /^#\s+docker build -f deploy\/Dockerfile -t (\S+) \.$/m.exec(DOCKERFILE);
  const run = /^#\s+docker run (.+)$/m.exec(DOCKERFILE);
  if (!build || !run)
    throw new Error('deploy/Dockerfile: its header has no `docker build -f deploy/Dockerfile -t NAME .` and `docker run` lines');
  const words = [...run[1].matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2]);
  const image = words.pop();
  if (image !== build[1]) throw new Error(`deploy/Dockerfile: docker run names ${image}, docker build tags ${build[1]}`);
  const args: string[] = [];
  for (let i = 0; i < words.length; i += 2) {
    const [option, value] = [words[i], words[i + 1]];
    if (option === '-v' && value.startsWith('$PWD/')) args.push('--volume', path.join(place.dir, value.slice('$PWD/'.length)));
    else if (option === '-v' && /^[\w-]+:/.test(value)) args.push('--volume', value.replace(/^[\w-]+/, place.volume));
    else if (option === '-p' && /^8000:8000$/.test(value)) args.push('--publish', `127.0.0.1:${place.port}:8000`);
    else throw new Error(`deploy/Dockerfile: docker run ${option} ${value} is not known to test/deploy-image.test.ts`);
  }
  return [...args, place.image];
}

/** The most hcas's own layers may weigh: 49 MB today; a development dependency or the raw data would pass it. */
const HCAS_LAYERS_MB = 75;
/** The Dockerfile's stop_grace_period in deploy/compose.yaml: a replica must be gone well within it. */
const GRACE_SECONDS = 15;

describe('deploy/Dockerfile, built and run', { timeout: 120_000 }, () => {
  if (PODMAN_MISSING.length) {
    serviceMissing(
      'the container image built and run (test/deploy-image.test.ts)',
      `Missing: ${PODMAN_MISSING.join(', ')}. Run as root with apt-get install -y podman runc debootstrap, as .ci/run does.`,
    );
    it.skip(`the container image (missing ${PODMAN_MISSING.join(', ')})`, () => {});
    return;
  }

  const dir = tempDir('hcas-image-run-');
  const container = testName('serve');
  const volume = testName('state');
  let port: number;
  let base: string;
  let image: string;
  let hcasMb: number;

  beforeAll(async () => {
    const built = await buildImages();
    image = built.app;
    const sizeMb = async (name: string) => Number(await podman(['image', 'inspect', '--format', '{{.Size}}', name])) / 1e6;
    const [imageMb, baseMb] = [await sizeMb(image), await sizeMb(IMAGES.base)];
    hcasMb = imageMb - baseMb;
    console.log(`container image: ${imageMb.toFixed(0)} MB (the base ${baseMb.toFixed(0)} MB, hcas ${hcasMb.toFixed(0)} MB)`);
    // The database, readable by the image's user (uid 1000) through the read-only mount.
    const data = path.join(dir, 'data');
    mkdirSync(data);
    copyFileSync(await fixtureDb(), path.join(data, 'hcas.sqlite'));
    chmodSync(dir, 0o755);
    chmodSync(data, 0o755);
    chmodSync(path.join(data, 'hcas.sqlite'), 0o644);
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    await podman(['run', '--detach', '--name', container, ...dockerRunArguments({ dir, image, port, volume })]);
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    await podman(['rm', '--force', '--volumes', '--time', '0', container]).catch(() => {});
    await podman(['volume', 'rm', '--force', volume]).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes its HEALTHCHECK once it serves (the check run as podman runs it, in the container)', async () => {
    const deadline = Date.now() + 60_000;
    while ((await podmanStatus(['healthcheck', 'run', container])) !== 0) {
      if (Date.now() > deadline) {
        const state = await podman(['inspect', '--format', '{{.State.Status}}, exit code {{.State.ExitCode}}', container]);
        throw new Error(`not healthy within 60 s (${state}); logs: ${await podman(['logs', container])}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(await podman(['inspect', '--format', '{{.State.Health.Status}}', container])).toBe('healthy');
  });

  it("answers /readyz and a ZIP code's score from the read-only database, counting calls in the /state volume", async () => {
    const ready = await request(base, '/readyz');
    expect(ready.status).toBe(200);
    expect((bodyJson(ready) as { status: string }).status).toBe('ready');
    const first = await request(base, '/api/v1/health-scores/02801/');
    expect(first.status).toBe(200);
    expect(bodyJson(first)).toMatchObject({ zip_code: '02801' });
    const second = await request(base, '/api/v1/health-scores/02801/');
    // Counted: the SQLite state in the volume is written by the image's user.
    expect(Number(second.headers['x-ratelimit-remaining'])).toBe(Number(first.headers['x-ratelimit-remaining']) - 1);
    expect(await podman(['exec', container, 'ls', '/state'])).toContain('state.sqlite');
    // The database is the mounted file, and the mount is read-only.
    expect(await podmanStatus(['exec', container, 'touch', '/data/hcas.sqlite'])).not.toBe(0);
  });

  it('makes a key with `hcas keys create` inside the container, which the server then honours', async () => {
    const created = JSON.parse(
      await podman(['exec', container, 'node', 'bin/hcas.js', 'keys', 'create', '--plan', 'free', '--name', 'Acme', '--json']),
    ) as { key: string; plan: string };
    expect(created.plan).toBe('free');
    const keyed = await request(base, '/api/v1/health-scores/02801/', { headers: { 'X-API-Key': created.key } });
    expect(keyed.status).toBe(200);
    expect(keyed.headers['x-ratelimit-limit']).toBe('1000');
    expect((await request(base, '/api/v1/health-scores/02801/', { headers: { 'X-API-Key': `${created.key}x` } })).status).toBe(401);
  });

  it('runs as the user node, with no compiler, no development dependency, and hcas adding less than 75 MB to its base', async () => {
    expect(await podman(['image', 'inspect', '--format', '{{.Config.User}}', image])).toBe('node');
    expect(await podman(['exec', container, 'id', '-u'])).toBe('1000');
    // The server's own processes (ps is not in the image: /proc).
    const owners = await podman(['exec', container, 'sh', '-c', 'stat -c %u /proc/[0-9]*']);
    expect(new Set(owners.split('\n'))).toEqual(new Set(['1000']));
    const compilers = await podman([
      'exec',
      container,
      'sh',
      '-c',
      'for c in cc gcc g++ c++ make python3 node-gyp; do command -v $c; done; true',
    ]);
    expect(compilers).toBe('');
    const modules = new Set((await podman(['exec', container, 'ls', '/app/node_modules'])).split('\n'));
    for (const name of Object.keys(packageJson.dependencies)) expect(modules.has(name.split('/')[0]), name).toBe(true);
    for (const name of Object.keys(packageJson.devDependencies)) expect(modules.has(name.split('/')[0]), name).toBe(false);
    // What hcas adds to its base: the production dependencies (46 MB, better-sqlite3's binary most of it),
    // dist/ and the configuration. The base is Node's own image (its binary alone 143 MB), printed above.
    expect(hcasMb).toBeLessThan(HCAS_LAYERS_MB);
  });

  it('stops on SIGTERM within the grace period, with exit code 0', async () => {
    const started = Date.now();
    // `podman stop` sends the image's STOPSIGNAL, and SIGKILL only after the grace period.
    await podman(['stop', '--time', String(GRACE_SECONDS), container], { timeoutMs: 60_000 });
    const seconds = (Date.now() - started) / 1000;
    expect(seconds).toBeLessThan(GRACE_SECONDS);
    expect(await podman(['inspect', '--format', '{{.State.ExitCode}}', container])).toBe('0');
    expect(await podman(['logs', container])).toMatch(/"event":"stopped"/);
  });
});
