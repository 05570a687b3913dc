import { perComponent } from '../../core/components.ts';
import { type Candidate, causeRef } from './causes.ts';
import { delta, type Pairs, type TypeValues } from './pairs.ts';
import type { FactChange, ProviderCounts, ScoreFacts, ZipChange } from './report.ts';

/** Causes listed per ZIP; the summary counts them all. */
const CAUSES_PER_ZIP = 5;

const finite = (x: number) => (Number.isFinite(x) ? x : null);

/**
 * The ZIPs that moved most, of at least `minResidents` residents: by points (the largest shift of the score,
 * then the most residents) or by residents (shift times residents: the people-points moved). Positions.
 */
export function chooseZips(
  pairs: Pairs,
  values: Map<number, TypeValues>,
  options: { top: number; minResidents: number; by: 'points' | 'residents' },
): number[] {
  const ranked = [...values]
    .map(([p, v]) => {
      const residents = pairs.residents(p);
      const shift = Math.abs(delta(v.healthscore) ?? 0);
      return { p, residents, weight: options.by === 'points' ? shift : shift * residents };
    })
    .filter((z) => z.residents >= options.minResidents);
  ranked.sort((x, y) => y.weight - x.weight || y.residents - x.residents || (pairs.zips[x.p] < pairs.zips[y.p] ? -1 : 1));
  return ranked.slice(0, options.top).map((z) => z.p);
}

/** One chosen ZIP as the report lists it: both scores, the component deltas, its causes and its changed facts. */
export function zipChange(pairs: Pairs, p: number, v: TypeValues, causes: readonly Candidate[], facts: FactChange[]): ZipChange {
  const side = (k: 0 | 1): ScoreFacts => ({
    healthscore: finite(v.healthscore[k]),
    label: v.label[k],
    ...perComponent((c) => finite(v[c][k])),
  });
  return {
    zip: pairs.zips[p],
    city: pairs.city(p),
    state: pairs.state(p),
    residents: pairs.residents(p),
    old: side(0),
    new: side(1),
    shift: delta(v.healthscore),
    deltas: perComponent((c) => delta(v[c])),
    causes: causes.slice(0, CAUSES_PER_ZIP).map(causeRef),
    facts,
  };
}

/** Clinicians by state (the directory's postings) and per 100,000 residents by category (`provider_coverage`). */
export function providerCounts(pairs: Pairs): ProviderCounts | null {
  const [a, b] = [pairs.old.clinicians.byState, pairs.current.clinicians.byState];
  const coverage = [pairs.old.meta.provider_coverage, pairs.current.meta.provider_coverage].map(
    (c) => ((c as { national?: Record<string, { observed?: number }> } | null)?.national ?? {}) as Record<string, { observed?: number }>,
  );
  if (!a && !b && !Object.keys(coverage[0]).length && !Object.keys(coverage[1]).length) return null;
  const total = (m: Map<string, number> | null) => (m ? [...m.values()].reduce((x, y) => x + y, 0) : null);
  const states = [...new Set([...(a?.keys() ?? []), ...(b?.keys() ?? [])])].sort();
  const categories = [...new Set([...Object.keys(coverage[0]), ...Object.keys(coverage[1])])];
  return {
    total: { old: total(a), new: total(b) },
    by_state: states
      .map((state) => ({ state, old: a ? (a.get(state) ?? 0) : null, new: b ? (b.get(state) ?? 0) : null }))
      .filter((row) => row.old !== row.new),
    by_category: categories
      .map((category) => ({ category, old: coverage[0][category]?.observed ?? null, new: coverage[1][category]?.observed ?? null }))
      .filter((row) => row.old !== row.new),
  };
}
