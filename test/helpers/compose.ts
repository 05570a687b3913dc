import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { tempDir } from './files.ts';
import { BUILD_TIMEOUT_MS, type BuiltImages, podman, podmanStatus, testName, withBuildLock } from './podman.ts';

/**
 * deploy/compose.yaml started with podman, service by service, as `docker compose up` would: the network
 * with the file's fixed addresses, the volumes, each service's image, environment, mounts, command, health
 * check, CPU quota, restart policy and stop grace period, started in the order of its `depends_on` (each
 * waited for until healthy). Debian 12's podman-compose (1.0.3) cannot read the file (it fails on a network
 * given with `ipv4_address`, and ignores `profiles` and `name`), so the test reads it itself. A key of a
 * service this file does not know fails the test: nothing in compose.yaml is passed over unseen.
 *
 * What differs from Docker, and why (deploy/README.md):
 * - the images Docker Hub would give (redis, nginx) are stand-ins built here on the local base with Debian's
 *   own packages (STAND_INS); hcas's are the tests' build of deploy/Dockerfile and its `build` target;
 * - service names resolve through /etc/hosts entries of the file's fixed addresses (`--add-host`): this podman's
 *   networks have no DNS without the dnsname plugin;
 * - the subnet's third number is chosen free, so two runs on one machine never meet (the addresses keep their
 *   last number); published ports go to free ports on 127.0.0.1 only.
 */

const DEPLOY = path.resolve(import.meta.dirname, '../../deploy');
export const COMPOSE_FILE = path.join(DEPLOY, 'compose.yaml');
/** The file's subnet, whose third number the test replaces. */
const SUBNET_PREFIX = '172.28.0.';

/**
 * The images compose.yaml names from Docker Hub, made here from the local base and Debian's packages, each
 * set up as its official image is where the file relies on it: Redis answering other containers (the
 * official entrypoint turns protected mode off when given no configuration), nginx reading conf.d/ alone
 * and logging to the container's output.
 */
const STAND_INS: Record<string, { name: string; containerfile: (base: string) => string }> = {
  'redis:7-bookworm': {
    name: 'localhost/hcas-test-redis:latest',
    containerfile: (base) =>
      [
        `FROM ${base}`,
        'RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server redis-tools > /dev/null && rm -rf /var/lib/apt/lists/*',
        'WORKDIR /data',
        // The official entrypoint's `--protected-mode no`, after the service's command.
        'ENTRYPOINT ["sh", "-c", "exec \\"$@\\" --protected-mode no", "sh"]',
        'CMD ["redis-server"]',
      ].join('\n'),
  },
  'nginx:1.27-bookworm': {
    name: 'localhost/hcas-test-nginx:latest',
    containerfile: (base) =>
      [
        `FROM ${base}`,
        'RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx > /dev/null && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/*' +
          ' && ln -sf /dev/stdout /var/log/nginx/access.log && ln -sf /dev/stderr /var/log/nginx/error.log',
        'STOPSIGNAL SIGQUIT',
        'CMD ["nginx", "-g", "daemon off;"]',
      ].join('\n'),
  },
};

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string; target?: string };
  profiles?: string[];
  restart?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  cpus?: number;
  stop_grace_period?: string;
  depends_on?: Record<string, { condition: string }>;
  networks?: Record<string, { ipv4_address: string }>;
  command?: string[];
  entrypoint?: string[];
  working_dir?: string;
  healthcheck?: { test: string[]; interval?: string; timeout?: string; retries?: number };
  ports?: string[];
}
const KNOWN_KEYS = new Set([
  'image',
  'build',
  'profiles',
  'restart',
  'environment',
  'volumes',
  'cpus',
  'stop_grace_period',
  'depends_on',
  'networks',
  'command',
  'entrypoint',
  'working_dir',
  'healthcheck',
  'ports',
]);

interface ComposeFile {
  name: string;
  services: Record<string, Service>;
  networks: Record<string, { ipam: { config: Array<{ subnet: string }> } }>;
  volumes: Record<string, unknown>;
}

/** Builds the stand-ins on `base` (Debian's packages; cached as layers after the first run). */
export function buildStandIns(base: string): Promise<void> {
  return withBuildLock(async () => {
    const context = tempDir('hcas-stand-in-');
    try {
      for (const standIn of Object.values(STAND_INS)) {
        writeFileSync(path.join(context, 'Containerfile'), standIn.containerfile(base));
        await podman(['build', '--tag', standIn.name, context], { timeoutMs: BUILD_TIMEOUT_MS });
      }
    } finally {
      rmSync(context, { recursive: true, force: true });
    }
  });
}

export class ComposeStack {
  /** The file as read, its subnet the test network's once `up` made it. */
  file: ComposeFile;
  private readonly dir: string;
  private readonly images: BuiltImages;
  private readonly network = testName('net');
  private readonly ports = new Map<number, number>();
  private readonly started: string[] = [];
  private readonly extraEnvironment: Record<string, string>;

  /**
   * `dir` stands for deploy/: its `data` and `tls` folders are the test's, the rest (nginx/) the repository's.
   * `hostPorts` maps each published container port to a free port on 127.0.0.1; `environment` is added to
   * every hcas service's.
   */
  constructor(options: { dir: string; images: BuiltImages; hostPorts: Record<number, number>; environment?: Record<string, string> }) {
    this.dir = options.dir;
    this.images = options.images;
    for (const [inside, outside] of Object.entries(options.hostPorts)) this.ports.set(Number(inside), outside);
    this.extraEnvironment = options.environment ?? {};
    this.file = readCompose(SUBNET_PREFIX);
  }

  /** The container of a service. */
  container(service: string): string {
    return testName(service);
  }

  /** `docker compose up -d`: the network, then every service not in a profile, each after what it depends on is healthy. */
  async up(): Promise<void> {
    const subnet = await this.createNetwork();
    for (const name of this.startOrder()) {
      this.started.push(name); // before: a run that fails may leave its container made
      await podman(['run', '--detach', ...this.runArgs(name, subnet)], { timeoutMs: 60_000 });
      await this.waitHealthy(name);
    }
  }

  /** `docker compose run --rm SERVICE`: a one-shot service (the tools profile's build-db), waited for. */
  async runOnce(name: string, timeoutMs: number): Promise<string> {
    return podman(['run', '--rm', ...this.runArgs(name, undefined)], { timeoutMs });
  }

  /** Waits until the service's health check passes (the check run as podman's timer would run it). */
  async waitHealthy(name: string, timeoutMs = 90_000): Promise<void> {
    if (!this.hasHealthCheck(name)) return;
    const deadline = Date.now() + timeoutMs;
    while ((await podmanStatus(['healthcheck', 'run', this.container(name)])) !== 0) {
      if (Date.now() > deadline)
        throw new Error(
          `${name} was not healthy within ${timeoutMs / 1000} s: ${await podman(['logs', '--tail', '20', this.container(name)])}`,
        );
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  /** `docker compose down --volumes`: every container, volume and the network this stack made. */
  async down(): Promise<void> {
    for (const name of this.started.reverse())
      await podman(['rm', '--force', '--volumes', '--time', '5', this.container(name)]).catch(() => {});
    for (const volume of Object.keys(this.file.volumes ?? {})) await podman(['volume', 'rm', '--force', testName(volume)]).catch(() => {});
    await podman(['network', 'rm', '--force', this.network]).catch(() => {});
  }

  /** Its own health check, or the HEALTHCHECK of the Dockerfile's last stage. */
  private hasHealthCheck(name: string): boolean {
    const service = this.file.services[name];
    return Boolean(service.healthcheck) || (service.build !== undefined && service.build.target === undefined);
  }

  /** The services `up` starts (no profile), each after those it depends on. */
  private startOrder(): string[] {
    const order: string[] = [];
    const visit = (name: string) => {
      if (order.includes(name)) return;
      for (const [dependency, { condition }] of Object.entries(this.file.services[name].depends_on ?? {})) {
        if (condition !== 'service_healthy')
          throw new Error(`${name}: depends_on condition ${condition} is not known to test/helpers/compose.ts`);
        visit(dependency);
      }
      order.push(name);
    };
    for (const [name, service] of Object.entries(this.file.services)) if (!service.profiles) visit(name);
    return order;
  }

  /** A network of the file's, on a /24 no other network of this machine has: the third number tried from a random one. */
  private async createNetwork(): Promise<string> {
    const networks = Object.keys(this.file.networks);
    if (networks.length !== 1) throw new Error(`compose.yaml has ${networks.length} networks; test/helpers/compose.ts knows one`);
    const first = 1 + Math.floor(Math.random() * 250);
    for (let attempt = 0; attempt < 20; attempt++) {
      const third = 1 + ((first + attempt) % 250);
      const subnet = `172.28.${third}.`;
      if (`${subnet}0/24` !== readCompose(subnet).networks[networks[0]].ipam.config[0].subnet)
        throw new Error(`compose.yaml's subnet is not ${SUBNET_PREFIX}0/24; update test/helpers/compose.ts`);
      if ((await podmanStatus(['network', 'create', '--subnet', `${subnet}0/24`, this.network])) === 0) {
        this.file = readCompose(subnet);
        return subnet;
      }
    }
    throw new Error('no free 172.28.X.0/24 for the test network (podman network ls)');
  }

  /** `podman run` arguments for a service, after `run --detach` or `run --rm` (`subnet` undefined: no network of the file's). */
  private runArgs(name: string, subnet: string | undefined): string[] {
    const service = this.file.services[name];
    for (const key of Object.keys(service))
      if (!KNOWN_KEYS.has(key)) throw new Error(`${name}: ${key} is not known to test/helpers/compose.ts`);
    const args = ['--name', this.container(name)];
    if (service.restart) args.push('--restart', service.restart);
    if (service.cpus !== undefined) args.push('--cpus', String(service.cpus));
    if (service.stop_grace_period) args.push('--stop-timeout', String(seconds(service.stop_grace_period)));
    if (service.working_dir) args.push('--workdir', service.working_dir);
    if (service.entrypoint) args.push('--entrypoint', JSON.stringify(service.entrypoint));
    const environment = { ...service.environment, ...(service.build ? this.extraEnvironment : {}) };
    for (const [key, value] of Object.entries(environment)) args.push('--env', `${key}=${value}`);
    for (const volume of service.volumes ?? []) args.push('--volume', this.volume(volume));
    for (const port of service.ports ?? []) {
      const [outside, inside] = port.split(':').map(Number);
      const hostPort = this.ports.get(outside);
      if (hostPort === undefined) throw new Error(`${name}: no host port given for ${port}`);
      args.push('--publish', `127.0.0.1:${hostPort}:${inside}`);
    }
    if (subnet !== undefined && service.networks) {
      args.push('--network', this.network, '--ip', Object.values(service.networks)[0].ipv4_address);
      for (const [other, { networks }] of Object.entries(this.file.services))
        if (networks && other !== name) args.push('--add-host', `${other}:${Object.values(networks)[0].ipv4_address}`);
    }
    if (service.healthcheck) {
      // This podman takes a command as a JSON array without compose's leading CMD, or a shell line.
      const [kind, ...command] = service.healthcheck.test;
      if (kind === 'CMD') args.push('--health-cmd', JSON.stringify(command));
      else if (kind === 'CMD-SHELL') args.push('--health-cmd', command.join(' '));
      else throw new Error(`${name}: healthcheck test ${kind} is not known to test/helpers/compose.ts`);
      if (service.healthcheck.interval) args.push('--health-interval', service.healthcheck.interval);
      if (service.healthcheck.timeout) args.push('--health-timeout', service.healthcheck.timeout);
      if (service.healthcheck.retries !== undefined) args.push('--health-retries', String(service.healthcheck.retries));
    }
    args.push(this.image(name, service), ...(service.command ?? []));
    return args;
  }

  private image(name: string, service: Service): string {
    if (service.build) {
      if (service.build.dockerfile !== 'deploy/Dockerfile')
        throw new Error(`${name}: builds ${service.build.dockerfile}, not deploy/Dockerfile`);
      if (service.build.target === undefined) return this.images.app;
      if (service.build.target === 'build') return this.images.tools;
      throw new Error(`${name}: build target ${service.build.target} is not known to test/helpers/compose.ts`);
    }
    const standIn = STAND_INS[service.image ?? ''];
    if (!standIn) throw new Error(`${name}: no stand-in for the image ${service.image}; add one to STAND_INS in test/helpers/compose.ts`);
    return standIn.name;
  }

  /** A compose volume: `./folder:/path[:ro]` (the test's folder for data/ and tls/, deploy/'s otherwise) or `name:/path` (a named volume). */
  private volume(spec: string): string {
    const [source, ...rest] = spec.split(':');
    if (!source.startsWith('./')) return [testName(source), ...rest].join(':');
    const relative = source.slice(2);
    const host = ['data', 'tls'].includes(relative.split('/')[0]) ? path.join(this.dir, relative) : path.join(DEPLOY, relative);
    return [host, ...rest].join(':');
  }
}

/** compose.yaml with `${VAR:-default}` read from this process's environment (as compose does) and the subnet's prefix replaced. */
function readCompose(subnetPrefix: string): ComposeFile {
  let text = readFileSync(COMPOSE_FILE, 'utf8').replace(
    /\$\{(\w+):-([^}]*)\}/g,
    (_all, name: string, fallback: string) => process.env[name] || fallback,
  );
  if (text.includes('$')) throw new Error(`${COMPOSE_FILE}: a variable form test/helpers/compose.ts does not read`);
  const count = text.split(SUBNET_PREFIX).length - 1;
  if (count < 5) throw new Error(`${COMPOSE_FILE}: expected the subnet's addresses (${SUBNET_PREFIX}*), found ${count}`);
  text = text.split(SUBNET_PREFIX).join(subnetPrefix);
  return parseYaml(text, { merge: true }) as ComposeFile;
}

/** Compose's duration (`15s`, `1m30s`) in seconds. */
function seconds(duration: string): number {
  const match = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(duration);
  if (!match || duration === '') throw new Error(`a duration test/helpers/compose.ts does not read: ${duration}`);
  return Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0);
}
