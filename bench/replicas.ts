/**
 * The replicated setup of deploy/: requests per second through nginx (the shipped deploy/nginx/hcas.conf, TLS,
 * keep-alive to the upstreams) in front of two `hcas serve` replicas, against one replica answered directly,
 * same run, interleaved rounds, medians compared. Each replica is one worker with the same settings, so the
 * ratio shows what the proxy hop costs and what a second replica gives back on this machine (on 2 cores the
 * replicas, nginx and wrk share the same two; on a bigger host the second replica adds its own cores).
 * Load from `wrk -t1 -c32`; every answer is checked before timing (200, a score record, nginx's request id
 * passed through). Needs nginx, openssl and wrk (Debian packages); says what it skips without them.
 * Stand-alone: node bin/run-ts.js bench/replicas.ts --db FILE [--seconds N]
 */
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, NGINX, selfSignedCertificate, TestNginx } from '../test/helpers/nginx.ts';
import { medians, sampleZips, type Measured } from './api.ts';
import { fetchBody, fmt, numberOption, option, printTable, runDirectly, startProcess } from './lib.ts';
import { runWrk, WRK, type WrkTarget } from './wrk.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const HCAS = path.join(ROOT, 'bin/hcas.js');
const HOST_NAME = 'api.example.org';

export async function benchReplicas(options: { db: string; seconds?: number }): Promise<void> {
  if (!NGINX || !WRK) {
    console.log(
      `!! replicated setup not measured: ${[!NGINX && 'nginx', !WRK && 'wrk'].filter(Boolean).join(' and ')} missing (apt-get install nginx wrk)`,
    );
    return;
  }
  const seconds = options.seconds ?? 6;
  const dir = mkdtempSync(path.join(tmpdir(), 'hcas-bench-replicas-'));
  const stops: Array<() => void | Promise<void>> = [];
  try {
    const certificate = selfSignedCertificate(dir, HOST_NAME);
    if (!certificate) {
      console.log('!! replicated setup not measured: openssl missing (apt-get install openssl)');
      return;
    }
    const paths = sampleZips(options.db).map((zip) => `/api/v1/health-scores/${zip}/`);
    // As the kit runs them: limits off here, so the ratio is the proxy and the replicas alone (bench/auth
    // measures the cost of counting); nginx is a trusted proxy, as in deploy/hcas.env.
    const serve = async () => {
      const port = await freePort();
      const replica = await startProcess([
        HCAS,
        'serve',
        '--db',
        options.db,
        '--port',
        String(port),
        '--workers',
        '1',
        '--quiet',
        '--no-watch',
        '--no-limits',
        '--trust-proxy',
        '127.0.0.1',
      ]);
      stops.push(replica.stop);
      return { ...replica, port };
    };
    const replicas = [await serve(), await serve()];
    const nginx = new TestNginx(path.join(dir, 'nginx'), await freePort(), await freePort());
    nginx.configure([replicas[0].port, replicas[1].port], certificate);
    await nginx.start();
    stops.push(() => nginx.stop());
    const nginxPids = await processTree(nginx);

    const direct: WrkTarget & { name: string } = {
      name: 'one replica, direct (plain HTTP)',
      url: replicas[0].url,
      paths,
      pids: [replicas[0].pid],
    };
    const proxied: WrkTarget & { name: string } = {
      name: 'nginx (TLS) + two replicas',
      url: `https://127.0.0.1:${nginx.httpsPort}`,
      paths,
      headers: { Host: HOST_NAME },
      pids: [...nginxPids, replicas[0].pid, replicas[1].pid],
    };
    await checkDirect(direct.url + paths[0]);
    await checkProxied(nginx.httpsPort, paths[0], certificate.cert);

    const rounds = Math.max(1, Math.floor(seconds / 2));
    const roundSeconds = Math.max(1, Math.round(seconds / rounds));
    for (const target of [direct, proxied]) runWrk(target, 1);
    const runs = { direct: [] as Measured[], proxied: [] as Measured[] };
    for (let round = 0; round < rounds; round++) {
      runs.direct.push(runWrk(direct, roundSeconds));
      runs.proxied.push(runWrk(proxied, roundSeconds));
    }
    const [d, p] = [medians(runs.direct), medians(runs.proxied)];
    const row = (name: string, m: Measured) => [
      name,
      fmt(m.rps, 0),
      fmt(m.p50, 2),
      fmt(m.p99, 2),
      `${fmt((100 * m.rps) / d.rps, 0)}%`,
      fmt(m.cpuMicroseconds, 1),
      String(m.failed),
    ];
    printTable(
      ['single-ZIP lookup', 'req/s', 'p50 ms', 'p99 ms', 'vs direct', 'CPU us/req (all processes)', 'failed'],
      [row(direct.name, d), row(proxied.name, p)],
    );
    console.log(
      `wrk -t1 -c32; ${rounds} rounds of ${roundSeconds} s interleaved after 1 s warm-up; medians. One worker per replica; nginx with 1 worker process.`,
    );
  } finally {
    for (const stop of stops.reverse()) await stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** nginx's master and worker processes (CPU is charged to all of them). */
export async function processTree(nginx: TestNginx): Promise<number[]> {
  const { readFileSync, readdirSync } = await import('node:fs');
  const master = Number(readFileSync(path.join(nginx.dir, 'nginx.pid'), 'utf8'));
  const children = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === master;
      } catch {
        return false;
      }
    });
  return [master, ...children.map(Number)];
}

async function checkDirect(url: string): Promise<void> {
  const { status, body } = await fetchBody(url, {});
  if (status !== 200 || typeof JSON.parse(body.toString('utf8')).healthscore !== 'number')
    throw new Error(`direct replica: expected a score record, got ${status}`);
}

/** Through nginx: a score record, and the request id nginx made is the one the replica answers with. */
function checkProxied(port: number, pathname: string, ca: string): Promise<void> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port, path: pathname, servername: HOST_NAME, headers: { Host: HOST_NAME }, ca, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const record = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          if (res.statusCode !== 200 || typeof record.healthscore !== 'number')
            return reject(new Error(`through nginx: expected a score record, got ${res.statusCode}`));
          if (!/^[0-9a-f]{32}$/.test(String(res.headers['x-request-id'])))
            return reject(new Error(`through nginx: no request id from nginx, got ${res.headers['x-request-id']}`));
          resolve();
        });
      })
      .on('error', reject);
  });
}

if (runDirectly(import.meta.filename)) {
  await benchReplicas({ db: option('--db') ?? 'dist-api/hcas.sqlite', seconds: numberOption('--seconds') });
}
