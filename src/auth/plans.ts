import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../core/package.ts';
import type { WindowUnit } from './windows.ts';

/** The plan presets shipped in config/plans/: `a` (the default) and `b`. */
export const PLAN_PRESETS = ['a', 'b'] as const;
const PRESET_DIR = path.join(PACKAGE_ROOT, 'config/plans');

/** One plan of a plan file, with the endpoints of the plans it includes folded in. */
export interface Plan {
  id: string;
  name: string;
  /** Calls per window; null for an unlimited plan. */
  quota: number | null;
  window: WindowUnit;
  /** Endpoint patterns it opens, its own and those of the plans it includes. */
  endpoints: readonly string[];
  /**
   * Features that change answers (`white_label_widget`), its own and those of the plans it includes. One Set
   * per plan, handed to the dispatcher with each request: its response cache keys entries by it.
   */
  features: ReadonlySet<string>;
  /** Position in the file, cheapest first. */
  rank: number;
}

/** The plans of one plan file. */
export interface PlanSet {
  name: string;
  /** Where it was read from, for messages. */
  source: string;
  plans: readonly Plan[];
  /** Endpoints open to every caller, whatever the plan. */
  open: readonly string[];
  /** Callers without a key: their quota per client IP, and the plan whose endpoints and features they get. */
  anonymous: { quota: number; window: WindowUnit; access: Plan };
}

/** A plan file that cannot be used; the message names the file, the field and the fix. */
export class PlanError extends Error {
  override name = 'PlanError';
}

/** Reads a preset (`a`, `b`) or a plan file. */
export function loadPlans(choice: string): PlanSet {
  const file = (PLAN_PRESETS as readonly string[]).includes(choice.toLowerCase())
    ? path.join(PRESET_DIR, `${choice.toLowerCase()}.json`)
    : choice;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new PlanError(
      `cannot read plan file ${file} (${(error as NodeJS.ErrnoException).code ?? error}): pass --plans a, --plans b or the path of a plan file`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new PlanError(`plan file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  return parsePlans(json, file);
}

type Json = Record<string, unknown>;

/** Checks a parsed plan file and folds each plan's `includes` into its endpoints and features. */
export function parsePlans(json: unknown, source: string): PlanSet {
  const fail = (where: string, problem: string): never => {
    throw new PlanError(`plan file ${source}: ${where} ${problem}`);
  };
  const object = (value: unknown, where: string): Json =>
    value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : fail(where, 'must be an object');
  const strings = (value: unknown, where: string): string[] =>
    Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : fail(where, 'must be a list of strings');
  const window = (value: unknown, where: string): WindowUnit =>
    value === 'day' || value === 'month' ? value : fail(where, `must be "day" or "month", got ${JSON.stringify(value)}`);
  const patterns = (value: unknown, where: string): string[] => {
    const list = strings(value, where);
    for (const pattern of list) checkPattern(pattern, (problem) => fail(where, problem));
    return list;
  };

  const root = object(json, 'the file');
  const rawPlans =
    Array.isArray(root.plans) && root.plans.length > 0 ? root.plans : fail('"plans"', 'must be a non-empty list, cheapest plan first');
  const plans: Plan[] = [];
  for (const [rank, raw] of rawPlans.entries()) {
    const spec = object(raw, `plans[${rank}]`);
    const id =
      typeof spec.id === 'string' && /^[a-z][a-z0-9_-]*$/.test(spec.id)
        ? spec.id
        : fail(`plans[${rank}].id`, 'must be a lower-case name such as "free"');
    const where = `plan "${id}"`;
    if (plans.some((p) => p.id === id)) fail(where, 'appears twice; give each plan its own id');
    const quota =
      spec.quota === 'unlimited'
        ? null
        : Number.isSafeInteger(spec.quota) && (spec.quota as number) >= 0
          ? (spec.quota as number)
          : fail(`${where} quota`, `must be a whole number of calls or "unlimited", got ${JSON.stringify(spec.quota)}`);
    let endpoints = patterns(spec.endpoints ?? [], `${where} endpoints`);
    let features = strings(spec.features ?? [], `${where} features`);
    if (spec.includes !== undefined) {
      const included =
        plans.find((p) => p.id === spec.includes) ??
        fail(`${where} includes`, `must name a plan listed before it, got ${JSON.stringify(spec.includes)}`);
      endpoints = [...included.endpoints, ...endpoints];
      features = [...new Set([...included.features, ...features])];
    }
    const name = typeof spec.name === 'string' ? spec.name : id;
    plans.push({ id, name, quota, window: window(spec.window, `${where} window`), endpoints, features: new Set(features), rank });
  }
  const anonymous = object(root.anonymous, '"anonymous"');
  const anonymousQuota =
    Number.isSafeInteger(anonymous.quota) && (anonymous.quota as number) >= 0
      ? (anonymous.quota as number)
      : fail('"anonymous".quota', 'must be a whole number of calls');
  const access =
    plans.find((p) => p.id === anonymous.access) ?? fail('"anonymous".access', `must name a plan, got ${JSON.stringify(anonymous.access)}`);
  return {
    name: typeof root.name === 'string' ? root.name : path.basename(source),
    source,
    plans,
    open: patterns(root.open ?? [], '"open"'),
    anonymous: { quota: anonymousQuota, window: window(anonymous.window, '"anonymous".window'), access },
  };
}

function checkPattern(pattern: string, fail: (problem: string) => never): void {
  const star = pattern.indexOf('*');
  if (star >= 0 && (star !== pattern.length - 1 || !(pattern.endsWith('/*') || pattern === '*'))) {
    fail(`has ${JSON.stringify(pattern)}: '*' may only be the last segment, as in "rankings/*"`);
  }
  if (pattern.startsWith('./') || pattern.includes('//') || pattern.includes('?'))
    fail(`has ${JSON.stringify(pattern)}: give a route path such as "health-scores/:zip/"`);
}

/**
 * True when an endpoint pattern covers a route path of the route table. Patterns are relative to the API's
 * base path (`/api/v1/`) unless they start with '/'; a `:name` segment matches any path parameter, whatever
 * its name, and a last segment `*` matches the rest of the path (`rankings/*` covers `rankings/states/` and
 * routes added later).
 */
export function patternCovers(pattern: string, routePath: string, basePath: string): boolean {
  const absolute = pattern.startsWith('/') ? pattern : `${basePath}${pattern}`;
  const wanted = absolute.split('/');
  const actual = routePath.split('/');
  const prefixOnly = wanted.at(-1) === '*';
  if (prefixOnly) wanted.pop();
  // A prefix pattern needs at least one segment after it: `rankings/*` covers `/api/v1/rankings/` (its last
  // segment is empty) and deeper paths, never `/api/v1/rankings` itself.
  if (prefixOnly ? actual.length <= wanted.length : actual.length !== wanted.length) return false;
  for (let i = 0; i < wanted.length; i++) {
    const [want, have] = [wanted[i], actual[i]];
    if (want.startsWith(':') ? !have.startsWith(':') : want !== have) return false;
  }
  return true;
}
