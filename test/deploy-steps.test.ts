import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shell } from './helpers/cli.ts';
import { tempDir } from './helpers/files.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { canConnect, freePort, NGINX, selfSignedCertificate } from './helpers/nginx.ts';
import { ServerProcess } from './helpers/process.ts';
import { hasCommand, serviceMissing } from './helpers/services.ts';

/**
 * The README's "One machine with systemd" steps, as written, on a throwaway copy of a stock Debian nginx
 * layout (issue 28, point 7): Debian's own /etc/nginx (nginx.conf, the default site enabled) copied under a
 * temporary root, and every line of the README block that touches nginx, the env file, the probes or the
 * keys run with only the machine-bound parts moved there (/etc -> ROOT/etc, ports 80 and 443 -> free
 * loopback ports, `sudo` and `sudo -u hcas` dropped, `systemctl reload nginx` -> nginx started by the test).
 * Lines that install packages, make a user or run systemd are not run here; they are listed below.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const STOCK = '/etc/nginx';
const HOST = 'api.example.org';

/** The README's systemd block, one command per line (continuations joined). */
function readmeSteps(): string[] {
  const block = /\*\*One machine with systemd\*\*[\s\S]*?```sh\n([\s\S]*?)```/.exec(README)?.[1];
  if (!block) throw new Error('README.md has no "One machine with systemd" block');
  return block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/** Steps the test cannot run on a shared machine: packages, the service user, the clone, systemd. */
const NOT_RUN = [
  /^curl -fsSL https:\/\/deb\.nodesource/,
  /apt-get install/,
  /useradd/,
  /git clone/,
  /npm ci/,
  /bin\/hcas\.js sample/,
  /systemctl (daemon-reload|enable)/,
];

const haveStock = existsSync(path.join(STOCK, 'nginx.conf')) && existsSync(path.join(STOCK, 'sites-available/default'));
const haveOpenssl = hasCommand('openssl', ['version']);

describe('the README self-hosting steps on a stock Debian nginx layout', { timeout: 120_000 }, () => {
  if (!NGINX || !haveStock || !haveOpenssl) {
    serviceMissing(
      "the README's self-hosting steps on Debian's nginx layout",
      "Install Debian's nginx and openssl (apt-get install -y nginx openssl; .ci/run does): the test copies /etc/nginx as the package ships it.",
    );
    return;
  }
  const dir = tempDir('hcas-deploy-steps-');
  const root = path.join(dir, 'root');
  const work = path.join(dir, 'work');
  let http = 0;
  let https = 0;
  let replica: ServerProcess;
  let nginx: ChildProcess | undefined;
  let nginxLog = '';
  const ran: Array<{ step: string; statuses: number[]; stdout: string; stderr: string }> = [];

  /** A step of the README with the machine-bound parts moved into the throwaway root. */
  const local = (step: string) =>
    step
      .replace(/\bsudo -u hcas /g, '')
      .replace(/\bsudo /g, '')
      .replace(/ -g hcas /g, ` -g ${execFileSync('id', ['-gn'], { encoding: 'utf8' }).trim()} `)
      .replaceAll('/etc/', `${root}/etc/`)
      .replace(/\bnginx -t\b/, `${NGINX} -t -c ${root}/etc/nginx/nginx.conf`)
      .replace('systemctl reload nginx', 'true')
      .replace(`curl -s https://${HOST}/`, `curl -sk --resolve ${HOST}:${https}:127.0.0.1 https://${HOST}:${https}/`)
      .replace(/\bdeploy\//g, `${work}/deploy/`)
      .replace(/\bbin\/hcas\.js\b/g, path.join(ROOT, 'bin/hcas.js'));

  /** Rewrites a file of the nginx layout: its paths into the root, its ports to loopback test ports. */
  const relocate = (file: string) => {
    let text = readFileSync(file, 'utf8')
      .replaceAll('/etc/nginx/', `${root}/etc/nginx/`)
      .replaceAll('/var/log/nginx/', `${root}/log/`)
      .replace('pid /run/nginx.pid;', `pid ${root}/nginx.pid;`)
      .replace(/^\s*listen \[::\]:\d+[^;]*;\n/gm, '')
      .replace(/listen 80\b/g, `listen 127.0.0.1:${http}`)
      .replace(/listen 443\b/g, `listen 127.0.0.1:${https}`);
    if (/^\s*listen (80|443)\b|^\s*listen \[::\]/m.test(text)) throw new Error(`${file}: a listen line the test does not know`);
    text = text.replace(/^user www-data;\n/m, '');
    writeFileSync(file, text);
  };

  beforeAll(async () => {
    [http, https] = await Promise.all([freePort(), freePort()]);
    // The stock layout, as `apt-get install nginx` leaves it: sites-enabled/default links to sites-available.
    mkdirSync(path.join(root, 'etc'), { recursive: true });
    mkdirSync(path.join(root, 'log'));
    cpSync(STOCK, path.join(root, 'etc/nginx'), {
      recursive: true,
      verbatimSymlinks: true,
      filter: (source) => !source.includes('sites-enabled/'),
    });
    for (const site of readdirSync(path.join(STOCK, 'sites-enabled')))
      symlinkSync(path.join(root, 'etc/nginx/sites-available', site), path.join(root, 'etc/nginx/sites-enabled', site));
    for (const file of ['nginx.conf', 'sites-available/default']) relocate(path.join(root, 'etc/nginx', file));
    // The hcas folder's deploy/ files, the replicas' ports moved to a test replica and a closed port.
    const replicaPort = await freePort();
    const closedPort = await freePort();
    cpSync(path.join(ROOT, 'deploy'), path.join(work, 'deploy'), { recursive: true });
    relocate(path.join(work, 'deploy/nginx/hcas.conf'));
    const upstreams = path.join(work, 'deploy/nginx/upstreams.systemd.conf');
    writeFileSync(
      upstreams,
      readFileSync(upstreams, 'utf8')
        .replace('127.0.0.1:8001', `127.0.0.1:${replicaPort}`)
        .replace('127.0.0.1:8002', `127.0.0.1:${closedPort}`),
    );
    // The env file as shipped, but for a key state of this test (without Redis the service keeps keys there).
    const env = path.join(work, 'deploy/hcas.env');
    writeFileSync(
      env,
      readFileSync(env, 'utf8')
        .replace(/^REDIS_URL=.*\n/m, '')
        .replace(/^HCAS_STATE=.*$/m, `HCAS_STATE=${path.join(dir, 'state.sqlite')}`)
        .replace(/^HCAS_DB=.*$/m, `HCAS_DB=${await fixtureDb()}`),
    );
    // The certificate files the README copies from the working directory.
    const certificate = selfSignedCertificate(dir, HOST)!;
    writeFileSync(path.join(work, 'fullchain.pem'), certificate.cert);
    writeFileSync(path.join(work, 'privkey.pem'), certificate.key);
    replica = new ServerProcess(
      ['bin/hcas.js', 'serve', '--port', String(replicaPort), '--workers', '1', '--quiet', '--no-limits', '--db', await fixtureDb()],
      {
        REDIS_URL: '',
      },
    );
    await replica.waitFor((event) => event.event === 'listening', 60_000);

    for (const step of readmeSteps()) {
      if (NOT_RUN.some((pattern) => pattern.test(step))) continue;
      if (step.startsWith('curl -s https://')) {
        // The service is up: nginx as `systemctl reload nginx` would have it, in the foreground of the test.
        nginx = spawn(NGINX!, ['-c', `${root}/etc/nginx/nginx.conf`, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
        nginx.stderr!.on('data', (chunk: Buffer) => (nginxLog += chunk.toString('utf8')));
        const deadline = Date.now() + 10_000;
        while (!(await canConnect(https))) {
          if (Date.now() > deadline) throw new Error(`nginx did not start: ${nginxLog}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      const run = await shell(local(step), { cwd: work, env: { HCAS_DB: undefined, HCAS_STATE: undefined, REDIS_URL: undefined } });
      ran.push({ step, statuses: run.statuses, stdout: run.stdout, stderr: run.stderr });
    }
  }, 120_000);

  afterAll(async () => {
    nginx?.kill('SIGQUIT');
    replica?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs every step it can as written, each with status 0', () => {
    expect(ran.map((r) => r.step)).toEqual(readmeSteps().filter((step) => !NOT_RUN.some((pattern) => pattern.test(step))));
    for (const { step, statuses, stderr } of ran)
      expect(
        statuses.every((status) => status === 0),
        `${step}\n${stderr}`,
      ).toBe(true);
    // The env file is readable by the service's group only, as the README installs it.
    expect(statSync(path.join(root, 'etc/hcas/hcas.env')).mode & 0o777).toBe(0o640);
  });

  it("answers on port 80 as hcas.conf promises, not with Debian's default site: the 301, and /healthz from a replica", async () => {
    const plain = await fetch(`http://127.0.0.1:${http}/api/v1/states/`, { redirect: 'manual' });
    expect(plain.status).toBe(301);
    expect(plain.headers.get('location')).toBe('https://127.0.0.1/api/v1/states/');
    const health = await fetch(`http://127.0.0.1:${http}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
  });

  it("the probe through TLS answers ready, and the key line makes a key with the service's settings", () => {
    const probe = ran.find((r) => r.step.startsWith('curl -s https://'))!;
    expect(JSON.parse(probe.stdout)).toMatchObject({ status: 'ready' });
    const key = ran.find((r) => r.step.includes('keys create'))!;
    expect(key.stdout.trim()).toMatch(/^hcas_live_[A-Za-z0-9]{32}$/);
  });
});

describe("the README's Node line", () => {
  it('installs a Node line the package supports (Debian 12 ships 18)', () => {
    const major = Number(/deb\.nodesource\.com\/setup_(\d+)\.x/.exec(README)?.[1]);
    const minimum = Number(/>=(\d+)/.exec(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).engines.node)?.[1]);
    expect(major).toBeGreaterThanOrEqual(minimum);
    expect(major % 2).toBe(0); // an LTS line, as the README says
  });
});
