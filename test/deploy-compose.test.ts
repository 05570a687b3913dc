import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedFolder } from './helpers/build-cache.ts';
import { ComposeStack, buildStandIns } from './helpers/compose.ts';
import { tempDir } from './helpers/files.ts';
import { canConnect, freePort, selfSignedCertificate } from './helpers/nginx.ts';
import { BUILD_TIMEOUT_MS, type BuiltImages, buildImages, IMAGES, PODMAN_MISSING, podman } from './helpers/podman.ts';
import { hasCommand, serviceMissing } from './helpers/services.ts';
import { type Answer, TlsClient } from './helpers/tls-client.ts';

/**
 * The README's Docker Compose steps on deploy/compose.yaml, in containers (podman; test/helpers/compose.ts
 * starts the file's services as compose would): the tools profile's build-db makes the default database in
 * data/, then Redis, two replicas of the image with one CPU each and nginx with a throwaway certificate. A
 * key made as the README says is counted exactly across both replicas, and one replica killed under load
 * (kill -9 of its process: the restart policy brings it back) loses no request. The load goes to nginx's
 * published port on 127.0.0.1 alone, bounded in count and time.
 */

const ROOT = path.resolve(import.meta.dirname, '..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const HOST_NAME = 'api.example.org';
const haveOpenssl = hasCommand('openssl', ['version']);

/** The README's compose block, one command per line. */
function readmeSteps(): string[] {
  const block = /\*\*Docker Compose\*\*[\s\S]*?```sh\n([\s\S]*?)```/.exec(README)?.[1];
  if (!block) throw new Error('README.md has no "Docker Compose" block');
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

describe("the README's Docker Compose steps: Redis, two replicas and nginx in containers", { timeout: 180_000 }, () => {
  if (PODMAN_MISSING.length || !haveOpenssl) {
    const missing = [...PODMAN_MISSING, ...(haveOpenssl ? [] : ['openssl'])].join(', ');
    serviceMissing(
      'the compose stack in containers (test/deploy-compose.test.ts)',
      `Missing: ${missing}. Run as root with apt-get install -y podman runc debootstrap openssl, as .ci/run does.`,
    );
    it.skip(`the compose stack (missing ${missing})`, () => {});
    return;
  }

  // deploy/'s stand-in: the README's steps run here; data/ and tls/ are made by them.
  const dir = tempDir('hcas-compose-');
  chmodSync(dir, 0o755);
  const steps = readmeSteps();
  let stack: ComposeStack;
  let built: BuiltImages;
  let client: TlsClient;
  let httpsPort: number;
  /** ZIP codes of the default build (read from it once build-db made it). */
  let zips: string[] = [];

  /** The README line that `pattern` finds, marked as run by the test that asks (the last test checks none is left). */
  const claimed = new Set<string>();
  const step = (pattern: RegExp): string => {
    const line = steps.find((candidate) => pattern.test(candidate));
    if (!line) throw new Error(`README.md's compose block has no line ${pattern}`);
    claimed.add(line);
    return line;
  };

  beforeAll(async () => {
    built = await buildImages();
    await buildStandIns(IMAGES.base);
    httpsPort = await freePort();
    stack = new ComposeStack({
      dir,
      images: built,
      hostPorts: { 80: await freePort(), 443: httpsPort },
      // Exact X-RateLimit-Remaining on a loaded test machine, as test/deploy-nginx.test.ts sets it: Redis is
      // waited for up to a second (the default, 10 ms, answers with an estimate when Redis is slower).
      environment: { HCAS_COUNT_WAIT: '1000' },
    });
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    client?.close();
    await stack?.down();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000); // four containers stopped in turn, each given up to 5 s

  it('mkdir -p data tls && cp fullchain.pem privkey.pem tls/: the certificate in place', () => {
    const certificate = selfSignedCertificate(dir, HOST_NAME)!;
    writeFileSync(path.join(dir, 'fullchain.pem'), certificate.cert);
    writeFileSync(path.join(dir, 'privkey.pem'), certificate.key);
    execFileSync('sh', ['-c', step(/^mkdir -p data tls && cp fullchain\.pem privkey\.pem tls\/$/)], { cwd: dir });
    chmodSync(path.join(dir, 'data'), 0o755);
    expect(readFileSync(path.join(dir, 'tls/fullchain.pem'), 'utf8')).toBe(certificate.cert);
    client = new TlsClient(httpsPort, certificate.cert, HOST_NAME);
  });

  it('docker compose --profile tools run --rm build-db: the default build into data/hcas.sqlite (once per image)', async () => {
    step(/^docker compose --profile tools run --rm build-db$/);
    const data = path.join(dir, 'data');
    mkdirSync(data, { recursive: true });
    // Run once per tools image and compose file, like every other build of the tests (the code and data are
    // the cache's key; the image's id covers its context): what it wrote in data/ is kept and copied in after.
    const started = Date.now();
    let ran = false;
    const kept = await cachedFolder(
      {
        kind: 'compose build-db: data/ as the tools profile writes it',
        identity: `${built.tools}\n${readFileSync(path.join(ROOT, 'deploy/compose.yaml'), 'utf8')}`,
      },
      async (into) => {
        await stack.runOnce('build-db', 900_000);
        cpSync(data, path.join(into, 'data'), { recursive: true });
        ran = true;
      },
    );
    if (!ran) cpSync(path.join(kept, 'data'), data, { recursive: true });
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    console.log(
      ran
        ? `compose: build-db made the default build in ${seconds} s`
        : `compose: build-db's data/ kept from a run of this image (${seconds} s)`,
    );
    const db = new Database(path.join(dir, 'data/hcas.sqlite'), { readonly: true });
    try {
      expect((db.prepare('SELECT count(*) AS n FROM health_scores').get() as { n: number }).n).toBeGreaterThan(1000);
      zips = (db.prepare('SELECT DISTINCT zip_code FROM health_scores ORDER BY zip_code LIMIT 3').all() as Array<{ zip_code: string }>).map(
        (row) => row.zip_code,
      );
    } finally {
      db.close();
    }
  }, 900_000);

  it('docker compose up -d --build: Redis, both replicas healthy, nginx serving over TLS', async () => {
    step(/^docker compose up -d --build$/);
    await stack.up();
    const deadline = Date.now() + 30_000;
    while (!(await canConnect(httpsPort))) {
      if (Date.now() > deadline) throw new Error(`nginx did not listen: ${await podman(['logs', stack.container('nginx')])}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const ready = await client.get('/readyz');
    expect(ready.status).toBe(200);
    const score = await client.get(`/api/v1/health-scores/${zips[0]}/`);
    expect(score.status).toBe(200);
    expect(JSON.parse(score.body.toString('utf8'))).toMatchObject({ zip_code: zips[0] });
    // cpus: 1 and HCAS_WORKERS=auto: one worker, whatever the host's cores.
    for (const replica of ['hcas-1', 'hcas-2']) {
      const listening = (await podman(['logs', stack.container(replica)])).split('\n').find((line) => line.includes('"event":"listening"'));
      expect(JSON.parse(listening ?? '{}').workers ?? 1, replica).toBe(1);
    }
  });

  let key = '';
  it('docker compose exec hcas-1 ... keys create: a key whose quota is counted exactly across both replicas', async () => {
    const line = step(/^docker compose exec hcas-1 node bin\/hcas\.js keys create /);
    const [service, ...command] = shellWords(line.replace(/^docker compose exec /, ''));
    key = (await podman(['exec', stack.container(service), ...command])).trim();
    expect(key).toMatch(/^\S{20,}$/);
    const limit = 1000; // the Free plan of config/plans/a.json
    const ids: string[] = [];
    for (let call = 1; call <= limit; call++) {
      const answer = await client.get(`/api/v1/health-scores/${zips[call % zips.length]}/`, { 'X-API-Key': key });
      expect(answer.status, `call ${call}`).toBe(200);
      expect(answer.headers['x-ratelimit-remaining'], `call ${call}`).toBe(String(limit - call));
      ids.push(String(answer.headers['x-request-id']));
    }
    expect((await client.get(`/api/v1/health-scores/${zips[0]}/`, { 'X-API-Key': key })).status).toBe(429);
    // nginx alternated: each replica logged a good share of the calls, none logged by both.
    const served = await Promise.all(
      ['hcas-1', 'hcas-2'].map(async (replica) => requestIds(await podman(['logs', stack.container(replica)]))),
    );
    for (const logged of served) expect(logged.size).toBeGreaterThan(limit / 10);
    expect(ids.filter((id) => served[0].has(id) && served[1].has(id))).toEqual([]);
    expect(ids.filter((id) => !served[0].has(id) && !served[1].has(id))).toEqual([]);
  });

  it('kill -9 one replica under load: its restart policy brings it back, no request fails, each call counted once', async () => {
    const created = JSON.parse(
      await podman([
        'exec',
        stack.container('hcas-2'),
        'node',
        'bin/hcas.js',
        'keys',
        'create',
        '--plan',
        'professional',
        '--name',
        'load',
        '--json',
      ]),
    ) as { key: string };
    const limit = 50_000; // the Professional plan
    const victim = stack.container('hcas-1');
    const logLines = async () => requestIds(await podman(['logs', victim])).size;
    let stop = false;
    const loadRun = client.load({
      concurrency: 8,
      // Stops when the restarted replica has served again (or 30 s after it is healthy); this cap only
      // bounds a run that goes wrong.
      maxRequests: 100_000,
      until: () => stop,
      next: (i) => ({ path: `/api/v1/health-scores/${zips[i % zips.length]}/`, headers: { 'X-API-Key': created.key }, ok: [200] }),
    });
    await new Promise((r) => setTimeout(r, 1_500));
    const servedBeforeKill = loadRun.answered;
    const pid = Number(await podman(['inspect', '--format', '{{.State.Pid}}', victim]));
    process.kill(pid, 'SIGKILL');
    const deadline = Date.now() + 60_000;
    while (Number(await podman(['inspect', '--format', '{{.RestartCount}}', victim])) < 1) {
      if (Date.now() > deadline) throw new Error('the killed replica was not restarted within 60 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    await stack.waitHealthy('hcas-1');
    // nginx leaves a failed replica out for fail_timeout (5 s), then sends it traffic again.
    const linesAtRestart = await logLines();
    const until = Date.now() + 30_000;
    while ((await logLines()) < linesAtRestart + 20 && Date.now() < until) await new Promise((r) => setTimeout(r, 250));
    stop = true;
    const result = await loadRun.done;

    expect(result.failures, JSON.stringify(result.failures.slice(0, 5))).toEqual([]);
    expect(result.answered).toBe(result.sent);
    expect(servedBeforeKill).toBeGreaterThan(20);
    expect(await logLines(), 'the restarted replica served again').toBeGreaterThanOrEqual(linesAtRestart + 20);
    // nginx sent some requests to the dead replica and retried them on the other (its log names both).
    const retried = (await podman(['logs', stack.container('nginx')])).split('\n').filter((line) => /upstream=[^ ]+, /.test(line)).length;
    console.log(`compose kill test: ${result.answered} requests answered through nginx, ${retried} retried on the other replica, 0 failed`);
    expect(retried).toBeGreaterThan(0);
    const next: Answer = await client.get(`/api/v1/health-scores/${zips[0]}/`, { 'X-API-Key': created.key });
    expect(next.headers['x-ratelimit-remaining']).toBe(String(limit - result.answered - 1));
  });

  it('runs every line of the README block', () => {
    expect(steps.filter((line) => !claimed.has(line))).toEqual([]);
  });
});

/** The request ids of a replica's log (one JSON line per request). */
function requestIds(log: string): Set<string> {
  return new Set([...log.matchAll(/"request_id":"([^"]+)"/g)].map((match) => match[1]));
}

/** A command line's words, double quotes removed (the README's `--name "Acme"`). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2]);
}
