/**
 * Synthetic metropolitan and micropolitan areas (CBSAs), combined statistical areas and NCHS urban-rural
 * codes over the synthetic counties. The rules loosely imitate OMB's: a county whose largest town has
 * 40,000+ people is a metro core (OMB's 50,000 urban area, lowered because synthetic towns are one postal
 * city), 12,000+ a micro core; nearby cores merge; neighbouring counties join as "Outlying"; the rest
 * stay rural and are absent from the delineation file, as in the real one. The thresholds were tuned so
 * the counts come close to the real 2023 delineation (about 1,250 metro and 650 micro counties).
 */
import type { County } from './counties.ts';
import { distanceMiles } from './geography.ts';
import { ISLAND_AREAS } from './states.ts';
import { Rng } from './prng.ts';

/** One core-based statistical area. */
export interface Cbsa {
  code: string;
  title: string;
  type: 'Metro' | 'Micro';
  population: number;
  counties: County[];
  central: Set<County>;
  csa?: Csa;
}

/** One combined statistical area. */
export interface Csa {
  code: string;
  title: string;
}

/** Delineation and NCHS codes of all counties. */
export interface MetroModel {
  cbsas: Cbsa[];
  cbsaOf: Map<County, Cbsa>;
  /** NCHS urban-rural codes [2023, 2013, 2006, 1990] per county (50 states and DC only). */
  nchs: Map<County, [number, number, number, number]>;
}

const METRO_CORE = 40_000;
const MICRO_CORE = 12_000;

/**
 * Groups cores around seeds, largest first: each seed takes the unassigned cores within a radius. Unlike
 * single linkage this cannot chain a whole megalopolis into one area.
 */
function cluster(cores: County[], miles: number, size: (c: County) => number): County[][] {
  const sorted = [...cores].sort((a, b) => size(b) - size(a) || (a.fips < b.fips ? -1 : 1));
  const taken = new Set<County>();
  const groups: County[][] = [];
  for (const seed of sorted) {
    if (taken.has(seed)) continue;
    const group = sorted.filter((c) => !taken.has(c) && distanceMiles(seed.lon, seed.lat, c.lon, c.lat) <= miles);
    for (const c of group) taken.add(c);
    groups.push(group);
  }
  return groups;
}

/** Titles are "City1-City2, ST1-ST2": the largest towns and the states of the area, by population. */
function title(counties: County[], cityCount: number, taken: Set<string>): string {
  const cities = new Map<string, number>();
  const states = new Map<string, number>();
  for (const c of counties) {
    states.set(c.state, (states.get(c.state) ?? 0) + c.population);
    for (const [city, pop] of c.cities) cities.set(`${city}|${c.state}`, (cities.get(`${city}|${c.state}`) ?? 0) + pop);
  }
  const ranked = [...cities].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([k]) => k.split('|')[0]!);
  const unique = [...new Set(ranked)];
  const stateList = [...states]
    .sort((a, b) => b[1] - a[1])
    .map(([s]) => s)
    .join('-');
  // Fall back to more city names when a title is already used (two areas named after the same town).
  for (let n = Math.min(cityCount, unique.length); n <= unique.length; n++) {
    const text = `${unique.slice(0, n).join('-')}, ${stateList}`;
    if (!taken.has(text)) {
      taken.add(text);
      return text;
    }
  }
  const text = `${unique[0]} ${taken.size}, ${stateList}`;
  taken.add(text);
  return text;
}

/** Builds CBSAs, CSAs and NCHS codes for the counties (deterministic for a seed). */
export function buildMetro(counties: County[], seed: number): MetroModel {
  const rng = new Rng(seed, 'metro');
  const eligible = counties.filter((c) => !ISLAND_AREAS.has(c.state));
  const core = (c: County) => c.cities[0]?.[1] ?? 0;
  const assigned = new Map<County, Cbsa>();
  const areas: Omit<Cbsa, 'code' | 'title'>[] = [];

  const addAreas = (type: 'Metro' | 'Micro', cores: County[], mergeMiles: number) => {
    for (const group of cluster(cores, mergeMiles, core)) {
      const area = { type, population: 0, counties: [...group], central: new Set(group) };
      areas.push(area);
      for (const c of group) assigned.set(c, area as Cbsa);
    }
  };
  const attachOutlying = (type: 'Metro' | 'Micro', miles: number, p: number) => {
    const centrals = eligible.filter((c) => assigned.get(c)?.type === type && assigned.get(c)!.central.has(c));
    for (const c of eligible) {
      if (assigned.has(c)) continue;
      let best: County | undefined,
        bestMiles = Infinity;
      for (const k of centrals) {
        const d = distanceMiles(c.lon, c.lat, k.lon, k.lat);
        if (d < bestMiles) [best, bestMiles] = [k, d];
      }
      if (best && bestMiles <= miles && rng.chance(p)) {
        const area = assigned.get(best)!;
        area.counties.push(c);
        assigned.set(c, area);
      }
    }
  };

  addAreas(
    'Metro',
    eligible.filter((c) => core(c) >= METRO_CORE),
    25,
  );
  attachOutlying('Metro', 40, 0.75);
  addAreas(
    'Micro',
    eligible.filter((c) => !assigned.has(c) && core(c) >= MICRO_CORE),
    15,
  );
  attachOutlying('Micro', 22, 0.3);

  const taken = new Set<string>();
  const cbsas = areas.map((a) => {
    a.population = a.counties.reduce((s, c) => s + c.population, 0);
    a.counties.sort((x, y) => (x.fips < y.fips ? -1 : 1));
    const names = a.population >= 2_500_000 ? 3 : a.population >= 500_000 ? 2 : 1;
    return Object.assign(a, { code: '', title: title(a.counties, names, taken) }) as Cbsa;
  });
  // Real CBSA codes are five digits in roughly alphabetical order of title, mostly multiples of 10.
  cbsas.sort((a, b) => (a.title < b.title ? -1 : 1));
  const step = Math.max(10, Math.floor(39900 / Math.max(1, cbsas.length) / 10) * 10);
  cbsas.forEach((a, i) => (a.code = String(10020 + i * step)));
  buildCsas(cbsas);

  const cbsaOf = new Map<County, Cbsa>();
  for (const a of cbsas) for (const c of a.counties) cbsaOf.set(c, a);
  return { cbsas, cbsaOf, nchs: nchsCodes(eligible, cbsaOf, rng) };
}

/** Large metros absorb nearby CBSAs into combined statistical areas. */
function buildCsas(cbsas: Cbsa[]): void {
  const centroid = (a: Cbsa) => a.counties.reduce((best, c) => (c.population > best.population ? c : best));
  const seeds = cbsas.filter((a) => a.type === 'Metro' && a.population >= 300_000).sort((a, b) => b.population - a.population);
  const csas: { members: Cbsa[] }[] = [];
  for (const main of seeds) {
    if (main.csa) continue;
    const m = centroid(main);
    const members = cbsas.filter((a) => {
      if (a === main || a.csa) return false;
      const c = centroid(a);
      return distanceMiles(m.lon, m.lat, c.lon, c.lat) <= 60;
    });
    if (members.length === 0) continue;
    const csa: Csa = { code: '', title: '' };
    for (const a of [main, ...members]) a.csa = csa;
    members.sort((a, b) => b.population - a.population);
    const first = (a: Cbsa) => a.title.split(/[-,]/)[0]!;
    const states = [...new Set([main, ...members].flatMap((a) => a.title.split(', ')[1]!.split('-')))];
    csa.title = `${first(main)}-${first(members[0]!)}, ${states.join('-')}`;
    csas.push({ members: [main, ...members] });
  }
  const all = csas.map((c) => c.members[0]!.csa!).sort((a, b) => (a.title < b.title ? -1 : 1));
  const step = Math.max(1, Math.floor(880 / Math.max(1, all.length)));
  all.forEach((c, i) => (c.code = String(104 + i * step)));
}

/** NCHS 2013-scheme codes: 1 large central metro .. 6 noncore, with earlier vintages drifting a little. */
function nchsCodes(counties: County[], cbsaOf: Map<County, Cbsa>, rng: Rng): Map<County, [number, number, number, number]> {
  const out = new Map<County, [number, number, number, number]>();
  for (const c of counties) {
    if (c.state === 'PR') continue; // the NCHS scheme covers the 50 states and DC only
    const a = cbsaOf.get(c);
    let code = 6;
    if (a?.type === 'Micro') code = 5;
    else if (a) {
      if (a.population >= 1_000_000) {
        // Large central: the county holding the area's largest city, or a very populous central county.
        const firstCity = a.title.split(/[-,]/)[0];
        code = a.central.has(c) && (c.cities[0]?.[0] === firstCity || c.population >= 900_000) ? 1 : 2;
      } else code = a.population >= 250_000 ? 3 : 4;
    }
    const drift = (p: number) => (rng.chance(p) ? Math.min(6, Math.max(1, code + (rng.chance(0.5) ? 1 : -1))) : code);
    out.set(c, [code, drift(0.08), drift(0.12), drift(0.2)]);
  }
  return out;
}
