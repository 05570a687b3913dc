import type { Route } from '../http/route.ts';
import { patternCovers, PlanError, type Plan, type PlanSet } from './plans.ts';

/** Who may call one route, decided once at startup from the plan file. */
export interface RouteAccess {
  /** The route as messages show it: relative to the base path, `{name}` for parameters (`health-scores/{zip}/`). */
  shownPath: string;
  /** Open to every caller, whatever the plan (meta/, openapi.json, the widget script). */
  open: boolean;
  /** Ids of the plans that open it. */
  plans: ReadonlySet<string>;
  /** The cheapest plan that opens it (named in the 403). */
  cheapest: Plan | undefined;
  /** One of the endpoints a widget key opens. */
  widget: boolean;
}

/** What a widget key (`hcas keys create --widget-only`) opens, relative to the base path: the widget's answer. */
export const WIDGET_ENDPOINTS = ['widget-score/*'];

/**
 * The plan access of every route of the route table. The plan file's endpoint patterns are relative to the
 * API's base path (`basePath`, `/api/v1/`) unless they start with '/'. Construction fails when a route is in
 * no plan and not open, naming each such route: an endpoint cannot ship without someone deciding who may call it.
 */
export class AccessTable {
  readonly planSet: PlanSet;
  private readonly byPath = new Map<string, RouteAccess>();

  constructor(planSet: PlanSet, routes: readonly Route[], basePath: string) {
    this.planSet = planSet;
    const uncovered: string[] = [];
    for (const route of routes) {
      const covers = (pattern: string) => patternCovers(pattern, route.path, basePath);
      const open = planSet.open.some(covers);
      const opening = planSet.plans.filter((plan) => plan.endpoints.some(covers));
      if (!open && opening.length === 0) uncovered.push(route.path);
      const shownPath = (route.path.startsWith(basePath) ? route.path.slice(basePath.length) : route.path).replace(/:(\w+)/g, '{$1}');
      const widget = WIDGET_ENDPOINTS.some(covers);
      this.byPath.set(route.path, { shownPath, open, plans: new Set(opening.map((p) => p.id)), cheapest: opening[0], widget });
    }
    if (uncovered.length > 0) {
      const fix =
        'add each path (or a pattern such as "rankings/*") to the endpoints of the cheapest plan that should have it, or to "open"';
      throw new PlanError(`plan file ${planSet.source}: no plan opens ${uncovered.join(', ')}; ${fix}`);
    }
  }

  /** The access of a route path of the table (`/api/v1/health-scores/:zip/`). */
  of(routePath: string): RouteAccess | undefined {
    return this.byPath.get(routePath);
  }
}
