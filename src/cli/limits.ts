import { AccessTable } from '../auth/access.ts';
import { TrustedProxies } from '../auth/client-ip.ts';
import { createLimits, limitsClock, openState, selectedPlans, stateLocation, type Limits, type LimitsFlags } from '../auth/config.ts';
import type { GateOptions } from '../auth/gate.ts';
import { PlanError, type PlanSet } from '../auth/plans.ts';
import type { RedisStore } from '../auth/redis-store.ts';
import type { StateStore } from '../auth/store.ts';
import { API_BASE, ROUTES } from '../api/index.ts';
import type { Route } from '../http/route.ts';
import { CliError, EXIT } from './errors.ts';
import type { LimitsCliOptions } from './limits-options.ts';

/** The plan file in force, checked against the route table; a CliError naming the fix otherwise. */
export function plansFor(options: LimitsFlags, env: NodeJS.ProcessEnv): PlanSet {
  return accessFor(options, env).planSet;
}

/**
 * The plan access of every route of the JSON API (or of `routes`); a CliError naming the fix when a route is in
 * no plan. The widget's embed script is outside the plans: every caller may load it (decisions.md, "Widget").
 */
export function accessFor(options: LimitsFlags, env: NodeJS.ProcessEnv, routes: readonly Route[] = ROUTES): AccessTable {
  try {
    return new AccessTable(selectedPlans(options, env), routes, API_BASE);
  } catch (error) {
    if (error instanceof PlanError) throw new CliError(error.message);
    throw error;
  }
}

/** Checks the plans, the proxies and the state file once in the cluster primary: a mistake is one clear error. */
export async function checkLimits(options: LimitsCliOptions, env: NodeJS.ProcessEnv): Promise<void> {
  plansFor(options, env);
  try {
    TrustedProxies.parse(options.trustProxy ?? env.HCAS_TRUST_PROXY);
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  const location = stateLocation(options, env);
  if (location.backend === 'sqlite') await (await openStateOrFail(options, env)).close();
}

/** The gate of a server or of `hcas get --key`. */
export async function openLimits(
  options: LimitsCliOptions,
  env: NodeJS.ProcessEnv,
  gateOptions: Partial<GateOptions> = {},
): Promise<Limits> {
  accessFor(options, env);
  try {
    return await createLimits(options, env, ROUTES, API_BASE, gateOptions);
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error), EXIT.data);
  }
}

/** The state named by the flags and environment, for `hcas keys`: a CliError when it cannot be reached. */
export async function openStateOrFail(options: LimitsFlags, env: NodeJS.ProcessEnv): Promise<StateStore> {
  let store: StateStore;
  try {
    store = await openState(stateLocation(options, env), limitsClock(env));
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error), EXIT.data);
  }
  if (store.backend === 'redis' && !(store as RedisStore).connected) {
    await store.close();
    throw new CliError(
      `Redis at ${store.location} (REDIS_URL) did not answer; start it, or unset REDIS_URL to use the state file`,
      EXIT.data,
    );
  }
  return store;
}

/** Runs `body` on the state, then closes it; a failing state is a CliError naming where it is. */
export async function withState<T>(options: LimitsFlags, env: NodeJS.ProcessEnv, body: (store: StateStore) => Promise<T>): Promise<T> {
  const store = await openStateOrFail(options, env);
  try {
    return await body(store);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`the key state at ${store.location} failed: ${error instanceof Error ? error.message : String(error)}`, EXIT.data);
  } finally {
    await store.close();
  }
}
