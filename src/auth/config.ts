import path from 'node:path';
import type { Route } from '../http/route.ts';
import { AccessTable } from './access.ts';
import { TrustedProxies } from './client-ip.ts';
import { Gate, type GateOptions } from './gate.ts';
import { loadPlans, type PlanSet } from './plans.ts';
import type { RedisStore } from './redis-store.ts';
import { SqliteStore } from './sqlite-store.ts';
import type { StateStore } from './store.ts';

/** Default state file (decisions.md, "Command line"), relative to the working directory. */
export const DEFAULT_STATE = 'var/state.sqlite';

/** The limits options every command shares; each falls back to its environment variable. */
export interface LimitsFlags {
  /** `--state-file FILE`; else `REDIS_URL`, else `HCAS_STATE`, else var/state.sqlite. */
  state?: string;
  /** `--plans a|b|FILE`; else `HCAS_PLANS`, else a. */
  plans?: string;
  /** `--trust-proxy ADDRS`; else `HCAS_TRUST_PROXY`, else none. */
  trustProxy?: string;
}

export type StateLocation = { backend: 'sqlite'; file: string } | { backend: 'redis'; url: string; prefix: string };

/**
 * Where keys and counters live. A `--state-file` flag wins (a flag beats the environment); then `REDIS_URL`
 * (several servers share one quota), then `HCAS_STATE`, then the default file.
 */
export function stateLocation(flags: LimitsFlags, env: NodeJS.ProcessEnv): StateLocation {
  if (flags.state) return { backend: 'sqlite', file: flags.state };
  if (env.REDIS_URL) return { backend: 'redis', url: env.REDIS_URL, prefix: env.HCAS_REDIS_PREFIX || 'hcas:' };
  return { backend: 'sqlite', file: env.HCAS_STATE || DEFAULT_STATE };
}

/** The plan file in force: `--plans`, `HCAS_PLANS`, or preset a. */
export function selectedPlans(flags: LimitsFlags, env: NodeJS.ProcessEnv): PlanSet {
  return loadPlans(flags.plans || env.HCAS_PLANS || 'a');
}

/**
 * The clock of the limits. Under test (`NODE_ENV=test`, as the test runner sets it) `HCAS_TEST_NOW` (epoch
 * milliseconds or ISO 8601) starts it at that instant and lets it run, so process-level tests sit in a
 * known window however long they take. Anywhere else the variable is ignored: a variable left in a
 * production environment must not move every quota window.
 */
export function limitsClock(env: NodeJS.ProcessEnv): () => number {
  const pinned = env.NODE_ENV === 'test' ? env.HCAS_TEST_NOW : undefined;
  if (!pinned) return Date.now;
  const start = /^\d+$/.test(pinned) ? Number(pinned) : Date.parse(pinned);
  if (!Number.isFinite(start)) throw new Error(`HCAS_TEST_NOW must be epoch milliseconds or an ISO 8601 time, got ${pinned}`);
  const booted = Date.now();
  return () => start + (Date.now() - booted);
}

/** Opens the state; Redis is given a moment to connect (a server then starts degraded if it has not). */
export async function openState(location: StateLocation, now: () => number, countWaitMs?: number): Promise<StateStore> {
  if (location.backend === 'sqlite') {
    try {
      return new SqliteStore(path.resolve(location.file), now);
    } catch (error) {
      throw new Error(
        `cannot open the state file ${location.file} (${(error as Error).message}): pass --state-file FILE with a writable path, or set REDIS_URL`,
      );
    }
  }
  // Loaded only for Redis: its client is the heaviest module of the command line.
  const { RedisStore } = await import('./redis-store.ts');
  const store = new RedisStore(location.url, location.prefix, now, countWaitMs);
  await store.ready();
  return store;
}

export interface Limits {
  gate: Gate;
  store: StateStore;
  /** Stops the gate's probe and closes the state. */
  close(): Promise<void>;
}

/**
 * The gate of a server (or of `hcas get --key`) from the flags and the environment `env` (each flag's
 * variable). Throws when the plan file leaves a route of `routes` in no plan, so a server never starts with
 * an endpoint nobody decided on. `basePath` is what the plan file's relative patterns are relative to.
 */
export async function createLimits(
  flags: LimitsFlags,
  env: NodeJS.ProcessEnv,
  routes: readonly Route[],
  basePath: string,
  options: Partial<GateOptions> = {},
): Promise<Limits> {
  const planSet = selectedPlans(flags, env);
  const access = new AccessTable(planSet, routes, basePath);
  const proxies = TrustedProxies.parse(flags.trustProxy ?? env.HCAS_TRUST_PROXY);
  const now = options.now ?? limitsClock(env);
  const store = await openState(stateLocation(flags, env), now, options.countWaitMs);
  const gate = new Gate({ store, access, proxies, now, ...options });
  if (store.backend === 'redis' && !(store as RedisStore).connected)
    gate.degrade(new Error(`Redis at ${store.location} did not answer at startup`));
  return {
    gate,
    store,
    close: async () => {
      await gate.close();
      await store.close();
    },
  };
}
