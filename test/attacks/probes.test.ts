import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/server.ts';
import { tempDir } from '../helpers/files.ts';
import { fixtureDb } from '../helpers/fixture-db.ts';
import { bodyJson, request, type HttpResult } from '../helpers/http.ts';
import { freePort, NGINX, selfSignedCertificate, TestNginx } from '../helpers/nginx.ts';
import { hasCommand, serviceMissing } from '../helpers/services.ts';
import { until } from './helpers.ts';

/**
 * Point 4 of issue #30: `/readyz` through the shipped nginx showed the public the process id, the database
 * file's name and the reload error. Now the probes answer callers through a proxy (and any caller not on
 * this machine) with their status alone, and give the detail to loopback callers not behind a proxy and to
 * holders of the metrics token, as `/metrics` does.
 */

const HOST_NAME = 'api.example.org';
const TOKEN = 'probe-detail-token';

describe('the probes through the shipped proxy', { timeout: 60_000 }, () => {
  if (!NGINX || !hasCommand('openssl', ['version'])) {
    serviceMissing(
      'the probes through nginx (test/attacks/probes.test.ts)',
      'Install nginx and openssl (apt-get install -y nginx openssl), as .ci/run does.',
    );
    it.skip('the probes through nginx (no nginx or openssl here)', () => {});
    return;
  }
  const dir = tempDir('hcas-attack-probes-');
  const db = path.join(dir, 'hcas-private-name.sqlite');
  let servers: RunningServer[];
  let nginx: TestNginx;
  let cert: string;

  beforeAll(async () => {
    copyFileSync(await fixtureDb(), db);
    servers = await Promise.all(
      [0, 1].map(async () =>
        startServer({
          db,
          port: await freePort(),
          host: '127.0.0.1',
          quiet: true,
          log: () => {},
          snapshotDir: path.join(dir, 'copies'),
          metrics: { enabled: true, token: TOKEN },
        }),
      ),
    );
    // A damaged file where the database was: each replica refuses it and says why in /readyz.
    writeFileSync(db, 'not a database');
    await until(
      async () => (bodyJson(await request(servers[0].url, '/readyz')) as { status: string }).status === 'degraded',
      'the reload to fail',
    );
    const certificate = selfSignedCertificate(dir, HOST_NAME)!;
    cert = certificate.cert;
    nginx = new TestNginx(path.join(dir, 'nginx'), await freePort(), await freePort());
    nginx.configure([servers[0].port, servers[1].port], certificate);
    await nginx.start();
  });
  afterAll(async () => {
    await nginx?.stop();
    for (const server of servers ?? []) await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A GET through nginx's TLS port. */
  function viaTls(target: string, headers: Record<string, string> = {}): Promise<HttpResult> {
    return new Promise((resolve, reject) => {
      https
        .get(
          {
            host: '127.0.0.1',
            port: nginx.httpsPort,
            path: target,
            servername: HOST_NAME,
            ca: cert,
            headers: { Host: HOST_NAME, ...headers },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
          },
        )
        .on('error', reject);
    });
  }

  const internal = (text: string) =>
    [String(process.pid), 'hcas-private-name', 'pid', 'file', 'last_reload', 'detail', 'not a database', 'uptime'].filter((word) =>
      text.includes(word),
    );

  it('show the public their status alone, over TLS and over plain HTTP', async () => {
    const readyz = await viaTls('/readyz');
    const healthz = await viaTls('/healthz');
    const plainHealthz = await request(`http://127.0.0.1:${nginx.httpPort}`, '/healthz');
    for (const answer of [readyz, healthz, plainHealthz]) {
      expect(answer.status).toBe(200);
      expect(internal(answer.body.toString('utf8')), answer.body.toString('utf8')).toEqual([]);
    }
    expect(bodyJson(readyz)).toMatchObject({ status: 'degraded', checks: { database: { status: 'degraded' } } });
    expect(bodyJson(healthz)).toEqual({ status: 'ok' });
  });

  it('give the detail on loopback without a proxy, and to the metrics token through the proxy', async () => {
    const direct = bodyJson(await request(servers[0].url, '/readyz')) as Record<string, unknown>;
    expect(direct).toMatchObject({ pid: process.pid, checks: { database: { file: 'hcas-private-name.sqlite', status: 'degraded' } } });
    expect(JSON.stringify(direct)).toContain('hcas-private-name.sqlite changed and is not a valid build');
    expect(bodyJson(await request(servers[0].url, '/healthz'))).toMatchObject({ status: 'ok', pid: process.pid });
    const withToken = bodyJson(await viaTls('/readyz', { Authorization: `Bearer ${TOKEN}` })) as Record<string, unknown>;
    expect(withToken).toMatchObject({ pid: process.pid, checks: { database: { file: 'hcas-private-name.sqlite' } } });
  });
});
