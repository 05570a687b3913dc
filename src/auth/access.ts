import type { Route } from '../http/route.ts';
import { patternCovers, PlanError, type Plan, type PlanSet } from './plans.ts';

/** Who may call one route, decided once at startup from the plan file. */
export interface RouteAccess {
  /** Open to every caller, whatever the plan (meta/, openapi.json, the widget script). */
  open: boolean;
  /** Ids of the plans that open it. */
  plans: ReadonlySet<string>;
  /** The cheapest plan that opens it (named in the 403). */
  cheapest: Plan | undefined;
}

/**
 * The plan access of every route of the route table. Construction fails when a route is in no plan and not
 * open, naming each such route: an endpoint cannot ship without someone deciding who may call it.
 */
export class AccessTable {
  private readonly byPath = new Map<string, RouteAccess>();

  constructor(readonly planSet: PlanSet, routes: readonly Route[]) {
    const uncovered: string[] = [];
    for (const route of routes) {
      const open = planSet.open.some((pattern) => patternCovers(pattern, route.path));
      const opening = planSet.plans.filter((plan) => plan.endpoints.some((pattern) => patternCovers(pattern, route.path)));
      if (!open && opening.length === 0) uncovered.push(route.path);
      this.byPath.set(route.path, { open, plans: new Set(opening.map((p) => p.id)), cheapest: opening[0] });
    }
    if (uncovered.length > 0) {
      throw new PlanError(`plan file ${planSet.source}: no plan opens ${uncovered.join(', ')}; add each path (or a pattern such as "rankings/*") to the endpoints of the cheapest plan that should have it, or to "open"`);
    }
  }

  /** The access of a route path of the table (`/api/v1/health-scores/:zip/`). */
  of(routePath: string): RouteAccess | undefined {
    return this.byPath.get(routePath);
  }
}
