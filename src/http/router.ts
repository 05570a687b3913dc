import type { Route } from './route.ts';

/** A route matched by path, with its path parameters percent-decoded. */
export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

interface CompiledRoute {
  route: Route;
  segments: string[];
}

/**
 * Matches request paths against the route table, segment by segment. A literal segment beats a parameter
 * (`health-scores/geojson/` is never read as a ZIP), whatever the order of the table. Paths match exactly:
 * the trailing-slash redirect is the dispatcher's decision, not a silent match.
 */
export class Router {
  private readonly compiled: CompiledRoute[];

  constructor(routes: readonly Route[]) {
    this.compiled = routes.map((route) => ({ route, segments: route.path.split('/') }));
  }

  /** The best match for a path (no query string), or undefined. */
  match(pathname: string): RouteMatch | undefined {
    const segments = pathname.split('/');
    let best: { match: RouteMatch; rank: string } | undefined;
    for (const candidate of this.compiled) {
      if (candidate.segments.length !== segments.length) continue;
      const params: Record<string, string> = {};
      let rank = '';
      let matched = true;
      for (let i = 0; i < segments.length && matched; i++) {
        const pattern = candidate.segments[i];
        if (pattern.startsWith(':')) {
          params[pattern.slice(1)] = decodeSegment(segments[i]);
          rank += '1';
          matched = segments[i] !== '';
        } else {
          rank += '0';
          matched = pattern === segments[i];
        }
      }
      if (matched && (!best || rank < best.rank)) best = { match: { route: candidate.route, params }, rank };
    }
    return best?.match;
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // malformed escapes fail the parameter's own validation instead
  }
}
