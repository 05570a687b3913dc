import { describe, expect, it } from 'vitest';
import { ALL_ROUTES } from '../src/api/index.ts';
import { NO_PARAMS, ok, ONCE, route, type RouteDefinition } from '../src/http/route.ts';

const base = { path: '/api/v1/test/', summary: 'test', pathParams: NO_PARAMS, query: NO_PARAMS, exported: ONCE, handle: () => ok({}) };
const flags = (definition: RouteDefinition) => {
  const { kind, inline, asset, streamed, heavy, byFeatures } = route(definition);
  return { kind, inline, asset, streamed, heavy, byFeatures };
};

describe('a route says how its answer is made by one kind (src/http/route.ts)', () => {
  it('gives each kind the flags the dispatcher and the gate read', () => {
    const none = { inline: false, asset: false, streamed: false, heavy: false, byFeatures: false };
    expect(flags(base)).toEqual({ kind: 'query', ...none });
    expect(flags({ ...base, heavy: true })).toEqual({ kind: 'query', ...none, heavy: true });
    expect(flags({ ...base, kind: 'lookup' })).toEqual({ kind: 'lookup', ...none, inline: true });
    expect(flags({ ...base, kind: 'lookup', byFeatures: true })).toEqual({ kind: 'lookup', ...none, inline: true, byFeatures: true });
    expect(flags({ ...base, kind: 'asset', heavy: true })).toEqual({ kind: 'asset', ...none, inline: true, asset: true, heavy: true });
    expect(flags({ ...base, kind: 'stream' })).toEqual({ kind: 'stream', ...none, streamed: true });
  });

  it('refuses, in the types, the combinations no route has', () => {
    // @ts-expect-error a streamed body is never made through the heavy queue
    route({ ...base, kind: 'stream', heavy: true });
    // @ts-expect-error only a lookup is made per feature set
    route({ ...base, kind: 'asset', byFeatures: true });
    // @ts-expect-error a lookup is bounded: never heavy
    route({ ...base, kind: 'lookup', heavy: true });
    // @ts-expect-error the old flags are gone: say the kind
    route({ ...base, inline: true });
  });

  it('the route table uses only those combinations', () => {
    const seen = new Set(ALL_ROUTES.map((r) => [r.kind, r.heavy && 'heavy', r.byFeatures && 'byFeatures'].filter(Boolean).join(' ')));
    expect([...seen].sort()).toEqual(['asset', 'asset heavy', 'lookup', 'lookup byFeatures', 'query', 'query heavy', 'stream']);
  });
});
