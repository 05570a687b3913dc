import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
/** The shipped site config and the upstream list of replicas on one machine (deploy/nginx/). */
export const SITE_CONFIG = path.join(root, 'deploy/nginx/hcas.conf');
export const SYSTEMD_UPSTREAMS = path.join(root, 'deploy/nginx/upstreams.systemd.conf');
/** The static API's locations (served files first, the replicas for the rest), which hcas.conf includes. */
export const STATIC_CONFIG = path.join(root, 'deploy/nginx/static.conf');
/** Debian's brotli_static module (`apt-get install libnginx-mod-http-brotli-static`), which static.conf uses. */
export const BROTLI_STATIC_MODULE = '/usr/lib/nginx/modules/ngx_http_brotli_static_module.so';
export const HAVE_BROTLI_STATIC = existsSync(BROTLI_STATIC_MODULE);

/** Debian's nginx (`apt-get install -y nginx`), on PATH or in /usr/sbin. */
export const NGINX = ['nginx', '/usr/sbin/nginx'].find((candidate) => {
  try {
    execFileSync(candidate, ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
});

/**
 * Replaces every `from` with `to`, expecting exactly `times` of them (or at least `atLeast`), else throws: a
 * changed shipped file must fail the test, not be tested half.
 */
function substitute(text: string, from: string, to: string, expected: { times?: number; atLeast?: number }, file: string): string {
  const found = text.split(from).length - 1;
  if (expected.times !== undefined ? found !== expected.times : found < (expected.atLeast ?? 1)) {
    throw new Error(
      `${file}: expected ${JSON.stringify(expected)} of "${from.trim()}" to substitute for the test, found ${found}; update test/helpers/nginx.ts with the file`,
    );
  }
  return text.split(from).join(to);
}

/**
 * nginx running deploy/nginx/hcas.conf on loopback. Only what ties the file to a machine is changed: the
 * listen lines (ports on 127.0.0.1, no IPv6), the folder /etc/nginx/hcas/ (upstreams and certificates) and
 * /var/log/nginx/. The upstream list is deploy/nginx/upstreams.systemd.conf with the replicas' test ports.
 */
export class TestNginx {
  readonly dir: string;
  readonly httpPort: number;
  readonly httpsPort: number;
  private child: ChildProcess | undefined;
  stderr = '';

  constructor(dir: string, httpPort: number, httpsPort: number) {
    this.dir = dir;
    this.httpPort = httpPort;
    this.httpsPort = httpsPort;
  }

  /**
   * Writes the configuration: the shipped file with the substitutions above, a self-signed certificate, nginx.conf;
   * with `staticRoot`, also deploy/nginx/static.conf serving the export in that folder (its `root` line changed).
   */
  configure(replicaPorts: [number, number], certificate: { cert: string; key: string }, options: { staticRoot?: string } = {}): void {
    const confDir = path.join(this.dir, 'hcas');
    for (const sub of ['hcas/tls', 'log', 'tmp/body', 'tmp/proxy', 'tmp/fastcgi', 'tmp/uwsgi', 'tmp/scgi']) {
      // Writable by nginx's workers, which run as nobody when the master is root.
      mkdirSync(path.join(this.dir, sub), { recursive: true, mode: 0o777 });
    }
    let upstreams = readFileSync(SYSTEMD_UPSTREAMS, 'utf8');
    upstreams = substitute(upstreams, '127.0.0.1:8001', `127.0.0.1:${replicaPorts[0]}`, { times: 1 }, SYSTEMD_UPSTREAMS);
    upstreams = substitute(upstreams, '127.0.0.1:8002', `127.0.0.1:${replicaPorts[1]}`, { times: 1 }, SYSTEMD_UPSTREAMS);
    writeFileSync(path.join(confDir, 'upstreams.conf'), upstreams);
    writeFileSync(path.join(confDir, 'tls/fullchain.pem'), certificate.cert);
    writeFileSync(path.join(confDir, 'tls/privkey.pem'), certificate.key);

    let site = readFileSync(SITE_CONFIG, 'utf8');
    // The upstream list and the two certificate files; the access log. Every other line is used as shipped.
    site = substitute(site, '/etc/nginx/hcas/', `${confDir}/`, { atLeast: 3 }, SITE_CONFIG);
    site = substitute(site, '/var/log/nginx/', `${path.join(this.dir, 'log')}/`, { atLeast: 1 }, SITE_CONFIG);
    site = substitute(site, '    listen 80;\n', `    listen 127.0.0.1:${this.httpPort};\n`, { times: 1 }, SITE_CONFIG);
    site = substitute(site, '    listen [::]:80;\n', '', { times: 1 }, SITE_CONFIG);
    site = substitute(site, '    listen 443 ssl;\n', `    listen 127.0.0.1:${this.httpsPort} ssl;\n`, { times: 1 }, SITE_CONFIG);
    site = substitute(site, '    listen [::]:443 ssl;\n', '', { times: 1 }, SITE_CONFIG);
    if (/^\s*listen /m.test(site.replace(/listen 127\.0\.0\.1:\d+( ssl)?;/g, '')))
      throw new Error(`${SITE_CONFIG}: a listen line the test does not know; update test/helpers/nginx.ts`);
    writeFileSync(path.join(this.dir, 'site.conf'), site);
    if (options.staticRoot !== undefined) {
      const root = '    root /var/lib/hcas-data/static;\n';
      const locations = substitute(
        readFileSync(STATIC_CONFIG, 'utf8'),
        root,
        `    root ${options.staticRoot};\n`,
        { times: 1 },
        STATIC_CONFIG,
      );
      writeFileSync(path.join(confDir, 'static.conf'), locations);
    }

    const tmp = (name: string) => path.join(this.dir, 'tmp', name);
    writeFileSync(
      path.join(this.dir, 'nginx.conf'),
      [
        // Loaded as Debian's package loads it (modules-enabled/), where it is installed: static.conf needs it.
        HAVE_BROTLI_STATIC ? `load_module ${BROTLI_STATIC_MODULE};` : '',
        'daemon off;',
        'worker_processes 1;',
        `pid ${path.join(this.dir, 'nginx.pid')};`,
        `error_log ${path.join(this.dir, 'log/error.log')} warn;`,
        'events { worker_connections 1024; }',
        'http {',
        `  client_body_temp_path ${tmp('body')};`,
        `  proxy_temp_path ${tmp('proxy')};`,
        `  fastcgi_temp_path ${tmp('fastcgi')};`,
        `  uwsgi_temp_path ${tmp('uwsgi')};`,
        `  scgi_temp_path ${tmp('scgi')};`,
        `  include ${path.join(this.dir, 'site.conf')};`,
        '}',
        '',
      ].join('\n'),
    );
  }

  private args(): string[] {
    return ['-p', this.dir, '-c', path.join(this.dir, 'nginx.conf'), '-e', path.join(this.dir, 'log/error.log')];
  }

  /** The lines of the site's access log (the `hcas` log format: request id, upstream addresses and statuses). */
  accessLog(): string[] {
    try {
      return readFileSync(path.join(this.dir, 'log/access.log'), 'utf8').trim().split('\n');
    } catch {
      return [];
    }
  }

  /** `nginx -t`: the configuration parses, the certificate loads. Throws nginx's own message otherwise. */
  check(): void {
    execFileSync(NGINX!, ['-t', ...this.args()], { stdio: 'pipe' });
  }

  /** Starts nginx in the foreground (a child of the test) and waits for its HTTPS port. */
  async start(): Promise<void> {
    this.child = spawn(NGINX!, this.args(), { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    const deadline = Date.now() + 10_000;
    while (!(await canConnect(this.httpsPort))) {
      if (this.child.exitCode !== null) throw new Error(`nginx exited with ${this.child.exitCode}: ${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`nginx did not listen on ${this.httpsPort}: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Stops nginx (SIGQUIT: it finishes its requests) and waits for it to exit. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      child.kill('SIGQUIT');
    });
  }
}

/** A self-signed certificate for `name` (and 127.0.0.1) from the openssl command; undefined without it. */
export function selfSignedCertificate(dir: string, name: string): { cert: string; key: string } | undefined {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=${name}`,
        '-addext',
        `subjectAltName=DNS:${name},IP:127.0.0.1`,
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
  } catch {
    return undefined;
  }
  return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

export function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}
