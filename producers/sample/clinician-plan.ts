/**
 * How many synthetic clinicians of each group (density-mix.ts) practise in each county, and where. Each group's
 * county totals are its real count (or estimate, or roster) times the sample fraction, rounded in one run over
 * the counties (systematic rounding from a seeded start), so that every county is within one clinician of its
 * share and the group's national total within one of the fraction of its national count; each county's total
 * is then split over the group's codes and the county's ZCTAs by the same rounding, exactly. The kinds no file
 * counts make up the rest of the `providers`, at their national densities, placed by the hub model over the
 * whole country as before.
 *
 * Where two groups meet, each keeps its county totals: a group whose codes another group's count all counts
 * (the psychiatrists among the mental health providers) is drawn inside that group, at most its clinicians in
 * the county; a code another group also counts (the general paediatricians, also paediatrics) is drawn at most
 * as many times as that group has clinicians in the county, and that group's own codes make up the rest.
 */
import { BuildError } from '../../pipeline/base/errors.ts';
import { ESTIMATED_FROM, EXPECTED_DENSITY, COVERAGE } from '../../pipeline/config/scoring.ts';
import type { Category } from '../../pipeline/config/specialties.ts';
import type { CountyPlacement } from './county-places.ts';
import { CLINICIAN_GROUPS, groupCounts, type ClinicianGroup, type Follows } from './density-mix.ts';
import type { PlacementKind } from './placement.ts';
import type { ProviderKind } from './provider-mix.ts';
import type { RealCounties } from './real-counties.ts';
import type { CountyCounts } from './real-counts.ts';
import { Rng, WeightedSampler } from './prng.ts';

/** The real world a plan follows. */
export interface PlanWorld {
  counties: RealCounties;
  placement: CountyPlacement;
  counts: CountyCounts;
  /** Clinicians of rosters (doctors_clinicians files), per category they count in: the ZCTA and ZIP of each. */
  rosters: ReadonlyMap<Category, ReadonlyArray<{ zcta: number; zip: string }>>;
  /** Residents of the country (the sum over every ZCTA, as the build counts them). */
  population: number;
  /** Hub-model weights of every ZCTA for a placement kind, 0 where no practice ZIP leads to it (the kinds no file counts). */
  weights(kind: PlacementKind): Float64Array;
}

/** What one group followed and drew. */
export interface GroupResult {
  follows: Follows;
  /** Where its counts came from: count files, an estimate from a total, or a roster. */
  basis: 'count' | 'estimate' | 'roster';
  /** Its clinicians in the whole country, in real units (a group drawn inside another at most that one's, county by county). */
  national: number;
  drawn: number;
  /** Per county a build adds it up to: the clinicians it should have at the sample fraction (`target`) and those drawn. */
  counties: Map<string, { target: number; drawn: number }>;
}

/** The synthetic individuals to write, and what they follow. */
export interface ClinicianPlan {
  sampleFraction: number;
  /** Individual providers in the whole country by the counts and densities followed. */
  nationalProviders: number;
  groups: GroupResult[];
  /** Per individual, shuffled: its kind (index into the kinds), ZCTA (index), and the practice ZIP where a roster fixes it. */
  kinds: Uint16Array;
  zctas: Int32Array;
  zips: Array<string | undefined>;
}

/** One group's clinicians per county in real units before the nesting rules, and where each county's go. */
interface Base {
  group: ClinicianGroup;
  basis: GroupResult['basis'];
  byCounty: Map<string, number>;
  /** For a roster: its clinicians per county by ZIP, in place of the hub model. */
  roster?: Map<string, Places>;
}

/** Where a county's clinicians of a kind go: ZCTAs (indices), each one's share, and for a roster the ZIP written. */
interface Places {
  zctas: readonly number[];
  shares: readonly number[];
  zips?: readonly string[];
}

/** Plans `providers` synthetic individuals over the world, `kinds` the mix (density-mix.ts). */
export function planClinicians(world: PlanWorld, kinds: readonly ProviderKind[], providers: number, seed: number): ClinicianPlan {
  const bases = CLINICIAN_GROUPS.map((group) => baseOf(group, world));
  const links = linksOf(bases);
  capHeld(bases, links);
  const order = countyOrder(world);
  const distinct = distinctClinicians(bases, links);
  const nationalProviders = distinct.reduce((a, b) => a + b, 0) + (kinds.reduce((sum, k) => sum + k.share, 0) * world.population) / 100_000;
  if (providers > nationalProviders)
    throw new BuildError(
      `--providers ${providers} is more than the ${Math.round(nationalProviders)} individual providers the real counts and documented densities give the whole country`,
    );
  const sampleFraction = providers / nationalProviders;
  const rng = new Rng(seed, 'clinician plan');
  const totals = bases.map((base) => roundCounties(base, order, sampleFraction, rng));
  const deck: Deck = { kinds: [], zctas: [], zips: [] };
  const drawn = drawCounties(bases, links, totals, order, { world, kinds, rng, fraction: sampleFraction, deck });
  addNationalKinds(deck, kinds, providers - deck.kinds.length, world, rng);
  shuffle(deck, rng);
  const groups = bases.map((base, g) => ({
    follows: base.group.follows,
    basis: base.basis,
    national: sum(base.byCounty.values()),
    drawn: sum([...drawn[g].values()].map((c) => c.drawn)),
    counties: drawn[g],
  }));
  return {
    sampleFraction,
    nationalProviders,
    groups,
    kinds: Uint16Array.from(deck.kinds),
    zctas: Int32Array.from(deck.zctas),
    zips: deck.zips,
  };
}

/** A group's clinicians per county in real units: its count, its roster (where complete), or its estimate. */
function baseOf(group: ClinicianGroup, world: PlanWorld): Base {
  const { follows } = group;
  const residentsOf = (county: string) => world.counties.residentsOf(county);
  if ('count' in follows) {
    const counts = world.counts.get(follows.count);
    if (!counts) throw missing(follows.count);
    return { group, basis: 'count', byCounty: withDensityElsewhere(counts, world.counties, density(counts, residentsOf)) };
  }
  const category = follows.estimate;
  const expected = (EXPECTED_DENSITY[category] * world.population) / 100_000;
  const roster = world.rosters.get(category) ?? [];
  if (roster.length >= COVERAGE.minNationalShare * expected) return rosterBase(group, roster, world);
  const parent = ESTIMATED_FROM[category];
  const totals = parent ? world.counts.get(parent) : undefined;
  if (!parent || !totals) throw missing(parent ?? category);
  const total = sum(totals.values());
  // As the build estimates: the national count where the total's clinicians are; at the national density where no file gives the total.
  const estimated = new Map([...totals].map(([county, n]) => [county, (expected * n) / total]));
  return { group, basis: 'estimate', byCounty: withDensityElsewhere(estimated, world.counties, EXPECTED_DENSITY[category]) };
}

function rosterBase(group: ClinicianGroup, roster: ReadonlyArray<{ zcta: number; zip: string }>, world: PlanWorld): Base {
  const byZip = new Map<string, Map<string, { zcta: number; zip: string; n: number }>>();
  for (const { zcta, zip } of roster) {
    const county = world.counties.home[zcta];
    if (county === null) continue;
    const zips = byZip.get(county) ?? new Map();
    byZip.set(county, zips);
    const at = zips.get(zip) ?? { zcta, zip, n: 0 };
    at.n++;
    zips.set(zip, at);
  }
  const byCounty = new Map([...byZip].map(([county, zips]) => [county, sum([...zips.values()].map((z) => z.n))]));
  const places = new Map(
    [...byZip].map(([county, zips]) => {
      const list = [...zips.values()];
      return [
        county,
        { zctas: list.map((z) => z.zcta), shares: list.map((z) => z.n / byCounty.get(county)!), zips: list.map((z) => z.zip) },
      ];
    }),
  );
  return { group, basis: 'roster', byCounty, roster: places };
}

/** The counts given, and at the given density (per 100,000 residents) in every other county of the crosswalks. */
function withDensityElsewhere(
  counts: ReadonlyMap<string, number>,
  counties: RealCounties,
  perHundredThousand: number,
): Map<string, number> {
  const all = new Map(counts);
  for (const county of counties.counties())
    if (!all.has(county)) all.set(county, (perHundredThousand * counties.residentsOf(county)) / 100_000);
  return all;
}

/** A count's clinicians per 100,000 residents of the counties it counts. */
function density(counts: ReadonlyMap<string, number>, residentsOf: (county: string) => number): number {
  let clinicians = 0;
  let residents = 0;
  for (const [county, n] of counts) {
    clinicians += n;
    residents += residentsOf(county);
  }
  return residents > 0 ? (100_000 * clinicians) / residents : 0;
}

/** How the groups meet: which group draws each group held inside it, and which later group counts each code a group draws. */
interface Links {
  /** Per group, the group it is drawn inside (-1: none): an estimate whose codes a count all counts. */
  heldBy: number[];
  /** Per group, its codes another, later group also counts, and that group. */
  shared: Array<Map<string, number>>;
}

function linksOf(bases: readonly Base[]): Links {
  const codesOf = (b: Base) => Object.keys(b.group.codes);
  const heldBy = bases.map((base) =>
    base.basis === 'count'
      ? -1
      : bases.findIndex((b) => b.basis === 'count' && codesOf(base).every((code) => groupCounts(b.group.follows, code))),
  );
  const shared = bases.map((base, g) => {
    const map = new Map<string, number>();
    for (const code of codesOf(base)) {
      const other = bases.findIndex((b, h) => h !== g && h !== heldBy[g] && heldBy[h] !== g && groupCounts(b.group.follows, code));
      if (other === -1) continue;
      if (other < g)
        throw new Error(`clinician groups: ${code} is counted by a group drawn before the one drawing it; list that group later`);
      map.set(code, other);
    }
    return map;
  });
  return { heldBy, shared };
}

/** A group drawn inside another has, in each county, at most the other's clinicians (psychiatrists among the mental health providers). */
function capHeld(bases: readonly Base[], links: Links): void {
  bases.forEach((base, g) => {
    const holder = links.heldBy[g] === -1 ? null : bases[links.heldBy[g]];
    if (holder) for (const [county, n] of base.byCounty) base.byCounty.set(county, Math.min(n, holder.byCounty.get(county) ?? 0));
  });
}

/** Each group's distinct clinicians in the country (real units): held groups are inside their holder, codes shared with a later group are its. */
function distinctClinicians(bases: readonly Base[], links: Links): number[] {
  const distinct = bases.map((base, g) => (links.heldBy[g] === -1 ? sum(base.byCounty.values()) : 0));
  bases.forEach((base, g) => {
    const weight = sum(Object.values(base.group.codes));
    for (const [code, h] of links.shared[g])
      for (const [county, n] of base.byCounty)
        distinct[h] -= Math.min((n * base.group.codes[code]) / weight, bases[h].byCounty.get(county) ?? 0);
  });
  return distinct;
}

/** Counties in the order they are rounded: by the county a build adds them up to, so that each such county's clinicians are one run. */
function countyOrder(world: PlanWorld): Array<{ county: string; to: string }> {
  return [...world.counties.counties()]
    .map((county) => ({ county, to: world.placement.attributedTo(county) }))
    .filter((c): c is { county: string; to: string } => c.to !== null)
    .sort((a, b) => (a.to < b.to ? -1 : a.to > b.to ? 1 : a.county < b.county ? -1 : a.county > b.county ? 1 : 0));
}

/** A group's clinicians per county at the fraction, rounded in one run over the counties. */
function roundCounties(base: Base, order: ReadonlyArray<{ county: string }>, fraction: number, rng: Rng): Map<string, number> {
  const systematic = rounding(rng.next());
  return new Map(order.map(({ county }) => [county, systematic((base.byCounty.get(county) ?? 0) * fraction)]));
}

interface Deck {
  kinds: number[];
  zctas: number[];
  zips: Array<string | undefined>;
}

/** What drawing needs besides the groups: the world, the mix, the seeded stream, the fraction, and the deck it fills. */
interface DrawContext {
  world: PlanWorld;
  kinds: readonly ProviderKind[];
  rng: Rng;
  fraction: number;
  deck: Deck;
}

/**
 * Splits each county's total of each group over its codes and places into the deck, the meeting groups as the
 * header says. Returns per group and county of attribution the clinicians it should have and those it has.
 */
function drawCounties(
  bases: readonly Base[],
  links: Links,
  totals: ReadonlyArray<ReadonlyMap<string, number>>,
  order: ReadonlyArray<{ county: string; to: string }>,
  context: DrawContext,
): Array<Map<string, { target: number; drawn: number }>> {
  const results = bases.map(() => new Map<string, { target: number; drawn: number }>());
  // Every code the groups draw, by index: what each county's clinicians are tallied by.
  const allCodes = bases.flatMap((b) => Object.keys(b.group.codes));
  const kindOf = new Map(context.kinds.map((k, i) => [k.taxonomy, i]));
  const codes = bases.map((b) =>
    Object.entries(b.group.codes).map(([code, weight]) => ({ at: allCodes.indexOf(code), weight, kind: kindOf.get(code)! })),
  );
  // Per group, every drawn code its count counts, and those other groups draw (the general paediatricians, for
  // paediatrics); a group drawn inside it (the psychiatrists, for the mental health providers) draws its own.
  const countedBy = (g: number, from: (h: number) => boolean) =>
    allCodes.flatMap((code, at) =>
      from(bases.findIndex((b) => code in b.group.codes)) && groupCounts(bases[g].group.follows, code) ? [at] : [],
    );
  const counted = bases.map((_, g) => countedBy(g, () => true));
  const byOthers = bases.map((_, g) => countedBy(g, (h) => h !== g && links.heldBy[h] !== g));
  const shared = bases.map((_, g) => [...links.shared[g]].map(([code, h]) => ({ at: allCodes.indexOf(code), h })));
  const placed = new Float64Array(allCodes.length);
  const drawn = (list: readonly number[]) => {
    let n = 0;
    for (const at of list) n += placed[at];
    return n;
  };
  for (const { county, to } of order) {
    placed.fill(0);
    const draw = (g: number, n: number, caps?: ReadonlyMap<number, number>) => {
      if (n === 0) return;
      const parts = split(
        n,
        codes[g].map((c) => c.weight),
        context.rng,
        codes[g].map((c) => caps?.get(c.at) ?? Infinity),
      );
      codes[g].forEach((c, i) => (placed[c.at] += place(bases[g], county, c.kind, parts[i], context)));
    };
    bases.forEach((_, g) => {
      if (links.heldBy[g] !== -1) return;
      let n = totals[g].get(county)!;
      bases.forEach((_, h) => {
        if (links.heldBy[h] !== g) return;
        const held = Math.min(totals[h].get(county)!, n);
        draw(h, held);
        n -= held;
      });
      n -= drawn(byOthers[g]);
      const caps = shared[g].length ? new Map(shared[g].map(({ at, h }) => [at, totals[h].get(county)! - drawn(byOthers[h])])) : undefined;
      draw(g, Math.max(0, n), caps);
    });
    bases.forEach((base, g) => {
      const r = results[g].get(to) ?? { target: 0, drawn: 0 };
      r.target += (base.byCounty.get(county) ?? 0) * context.fraction;
      r.drawn += drawn(counted[g]);
      results[g].set(to, r);
    });
  }
  return results;
}

/** Puts `n` clinicians of a kind of a group in a county's places (the roster's ZIPs, or the hub model's ZCTAs); returns those put. */
function place(base: Base, county: string, kind: number, n: number, context: DrawContext): number {
  if (n === 0) return 0;
  const places: Places | null = base.roster?.get(county) ?? context.world.placement.placesOf(county, context.kinds[kind].placement);
  if (!places) return 0;
  const parts = split(n, places.shares, context.rng);
  let put = 0;
  for (let i = 0; i < parts.length; i++) {
    for (let j = 0; j < parts[i]; j++) {
      context.deck.kinds.push(kind);
      context.deck.zctas.push(places.zctas[i]);
      context.deck.zips.push(places.zips?.[i]);
    }
    put += parts[i];
  }
  return put;
}

/**
 * `n` split in proportion to `weights`, each part the floor or the ceiling of its share (systematic rounding
 * from a seeded start) and at most its cap; what a cap keeps out goes to the parts without one the same way.
 */
function split(n: number, weights: readonly number[], rng: Rng, caps?: readonly number[]): number[] {
  const parts = new Array<number>(weights.length).fill(0);
  let open = caps ? weights.map((w, i) => (caps[i] > 0 ? w : 0)) : weights;
  let left = n;
  while (left > 0) {
    const total = sum(open);
    if (!(total > 0)) break;
    const systematic = rounding(rng.next());
    let last = open.length - 1;
    while (!(open[last] > 0)) last--;
    let given = 0;
    for (let i = 0; i <= last; i++) {
      if (!(open[i] > 0)) continue;
      const k = i === last ? left - given : systematic((left * open[i]) / total);
      parts[i] += caps ? Math.min(k, caps[i] - parts[i]) : k;
      given += k;
    }
    left = n - sum(parts);
    if (caps) open = open.map((w, i) => (parts[i] < caps[i] ? w : 0));
  }
  return parts;
}

/**
 * Systematic rounding from `start` in [0, 1): each target becomes the whole numbers its running sum crosses,
 * so any run of consecutive targets gets the floor or the ceiling of its total.
 */
function rounding(start: number): (target: number) => number {
  let sum = 0;
  return (target) => {
    const before = Math.floor(start + sum);
    sum += target;
    return Math.floor(start + sum) - before;
  };
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

/** The kinds no file counts: `count` individuals split by their national densities (largest remainders), each placed by the hub model. */
function addNationalKinds(deck: Deck, kinds: readonly ProviderKind[], count: number, world: PlanWorld, rng: Rng): void {
  const total = kinds.reduce((sum, k) => sum + k.share, 0);
  const exact = kinds.map((k) => (count * k.share) / total);
  const whole = exact.map(Math.floor);
  const byRemainder = exact.map((x, i) => [x - whole[i], i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  const short = count - sum(whole);
  for (let r = 0; r < short; r++) whole[byRemainder[r][1]]++;
  const samplers = new Map<PlacementKind, WeightedSampler>();
  kinds.forEach((kind, i) => {
    let sampler = samplers.get(kind.placement);
    if (!sampler) samplers.set(kind.placement, (sampler = new WeightedSampler(world.weights(kind.placement))));
    for (let j = 0; j < whole[i]; j++) {
      deck.kinds.push(i);
      deck.zctas.push(sampler.sample(rng));
      deck.zips.push(undefined);
    }
  });
}

/** Fisher-Yates, so the NPPES rows come in no order of group or county. */
function shuffle(deck: Deck, rng: Rng): void {
  for (let i = deck.kinds.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [deck.kinds[i], deck.kinds[j]] = [deck.kinds[j], deck.kinds[i]];
    [deck.zctas[i], deck.zctas[j]] = [deck.zctas[j], deck.zctas[i]];
    [deck.zips[i], deck.zips[j]] = [deck.zips[j], deck.zips[i]];
  }
}

function missing(kind: string): BuildError {
  return new BuildError(
    `no clinician count file of the manifest counts ${kind}: hcas sample follows the real counts per county (raw/manifests/public.json names them; layout clinician_counts)`,
  );
}
