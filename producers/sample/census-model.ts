/**
 * Synthetic demographics per ZCTA. Values are invented but hang together the way real ACS estimates do:
 * population and land area follow the local density of ZCTA centroids ("urbanity"), and income, poverty,
 * insurance, vehicles, transit, housing and race shares follow urbanity, a latent deprivation factor and a
 * few real regional patterns (Puerto Rico's incomes, the South's uninsured rates, coastal home values).
 */
import type { Geography, Zcta } from './geography.ts';
import { ISLAND_AREAS } from './states.ts';
import { Rng, clamp } from './prng.ts';

/** Synthetic "true" values of one ZCTA, before any Census suppression is applied. */
export interface Demographics {
  population: number;
  landSqMi: number;
  waterSqMi: number;
  medianAge: number;
  pct65: number;
  medianIncome: number;
  poverty: number;
  uninsured: number;
  privateIns: number;
  publicIns: number;
  disability: number;
  noVehicle: number;
  transit: number;
  housingUnits: number;
  ownerPct: number;
  homeValue: number;
  white: number;
  black: number;
  asian: number;
  hispanic: number;
  /** Latent deprivation (about N(0,1)): drives poverty, income and health outcomes together. */
  deprivation: number;
}

/** National population the sample is scaled to (ACS 2018-2022 total is about 331 million). */
export const NATIONAL_POPULATION = 331_000_000;

// Regional shifts, real in direction and rough size. Keys are USPS codes; unlisted states use defaults.
const DEPRIVATION: Record<string, number> = {
  MS: 0.6,
  LA: 0.5,
  NM: 0.5,
  WV: 0.5,
  AR: 0.45,
  AL: 0.4,
  KY: 0.4,
  OK: 0.35,
  SC: 0.3,
  TN: 0.3,
  GA: 0.25,
  TX: 0.2,
  NC: 0.2,
  AZ: 0.15,
  PR: 1.6,
  NH: -0.5,
  MD: -0.4,
  NJ: -0.35,
  MA: -0.35,
  CT: -0.3,
  MN: -0.35,
  UT: -0.4,
  VA: -0.25,
  WA: -0.25,
  CO: -0.3,
  HI: -0.3,
  DC: -0.1,
};
const INCOME: Record<string, number> = {
  MA: 0.2,
  NJ: 0.22,
  MD: 0.25,
  CT: 0.18,
  CA: 0.18,
  WA: 0.17,
  DC: 0.3,
  NH: 0.18,
  HI: 0.2,
  CO: 0.15,
  VA: 0.12,
  NY: 0.05,
  MN: 0.08,
  UT: 0.1,
  MS: -0.22,
  WV: -0.2,
  AR: -0.18,
  LA: -0.15,
  AL: -0.14,
  NM: -0.15,
  KY: -0.13,
  OK: -0.12,
  PR: -0.6,
};
const UNINSURED: Record<string, number> = {
  TX: 17,
  OK: 14,
  GA: 13,
  FL: 12.5,
  MS: 12,
  NV: 11,
  AK: 12,
  WY: 11,
  NC: 10.5,
  SC: 10.5,
  TN: 10,
  AZ: 10.5,
  NM: 9.5,
  MA: 3,
  DC: 3.5,
  VT: 4,
  HI: 4,
  RI: 4.2,
  MN: 4.5,
  IA: 4.8,
  NY: 5.2,
  PR: 6.5,
};
const HOME_VALUE: Record<string, number> = {
  CA: 2.3,
  HI: 2.4,
  MA: 1.7,
  WA: 1.7,
  DC: 2.2,
  CO: 1.7,
  NJ: 1.45,
  NY: 1.3,
  OR: 1.5,
  UT: 1.5,
  MD: 1.35,
  CT: 1.2,
  RI: 1.3,
  NH: 1.25,
  MT: 1.2,
  ID: 1.3,
  VA: 1.2,
  NV: 1.3,
  AZ: 1.25,
  WV: 0.5,
  MS: 0.55,
  AR: 0.6,
  OK: 0.6,
  KY: 0.65,
  AL: 0.65,
  LA: 0.68,
  IA: 0.7,
  KS: 0.7,
  OH: 0.7,
  IN: 0.68,
  MI: 0.7,
  PR: 0.45,
};
const BLACK: Record<string, number> = {
  DC: 45,
  MS: 37,
  LA: 32,
  GA: 31,
  MD: 30,
  SC: 26,
  AL: 26,
  DE: 22,
  NC: 21,
  VA: 19,
  TN: 16,
  FL: 15,
  AR: 15,
  NY: 14,
  IL: 14,
  NJ: 13,
  MI: 13,
  OH: 12,
  TX: 12,
  PA: 11,
  MO: 11,
  CT: 10,
  IN: 9,
  NV: 9,
  KY: 8,
  CA: 5.5,
  PR: 8,
};
const HISPANIC: Record<string, number> = {
  NM: 49,
  TX: 40,
  CA: 40,
  AZ: 32,
  NV: 29,
  FL: 27,
  CO: 22,
  NJ: 22,
  NY: 19,
  IL: 18,
  CT: 17,
  RI: 17,
  UT: 15,
  OR: 14,
  WA: 14,
  MA: 13,
  ID: 13,
  KS: 13,
  OK: 11,
  NE: 12,
  DC: 11,
  PR: 98,
};
const ASIAN: Record<string, number> = {
  HI: 37,
  CA: 16,
  WA: 10,
  NJ: 10,
  NY: 9,
  NV: 9,
  MA: 7,
  VA: 7,
  MD: 7,
  DC: 4.5,
  IL: 6,
  TX: 5.5,
};
// American Indian / Alaska Native and other races, which reduce the "White alone" share.
const OTHER_RACE: Record<string, number> = { PR: 50, AK: 18, NM: 11, OK: 12, SD: 9, MT: 7, AZ: 6, ND: 6, HI: 25 };
const AGE: Record<string, number> = { UT: -7, TX: -3.5, AK: -3, DC: -5, ID: -2, ME: 4, VT: 3.5, NH: 3.5, FL: 3, WV: 3, PR: 4 };
// Where public transport is a real commuting option in dense cores (elsewhere dense areas still drive).
const TRANSIT: Record<string, number> = { NY: 1.2, DC: 1.1, NJ: 0.9, MA: 0.8, IL: 0.8, PA: 0.6, CA: 0.45, WA: 0.6, MD: 0.7, VA: 0.4 };

const get = (table: Record<string, number>, state: string, fallback: number) => table[state] ?? fallback;
const round1 = (x: number) => Math.round(x * 10) / 10;

/** Builds the synthetic demographics of every ZCTA (same order as geography.zctas). */
export function buildDemographics(geo: Geography, seed: number): Demographics[] {
  const rng = new Rng(seed, 'census-model');
  const raw = geo.zctas.map((z) => rawPopulation(z, rng));
  // Scale to the national total over the 50 states, DC and PR (island areas are outside the ACS).
  let total = 0;
  geo.zctas.forEach((z, i) => {
    if (!ISLAND_AREAS.has(z.state)) total += raw[i] as number;
  });
  const scale = NATIONAL_POPULATION / total;
  return geo.zctas.map((z, i) => describe(z, Math.round((raw[i] as number) * scale), rng));
}

function rawPopulation(z: Zcta, rng: Rng): number {
  // About 1% of ZCTAs have nobody living in them (parks, industrial areas, large-volume mail stops);
  // they are mostly remote.
  if (rng.chance(z.urbanity < 0.25 ? 0.02 : 0.004)) return 0;
  return Math.exp(6.2 + 4.0 * z.urbanity + 1.0 * rng.normal());
}

function describe(z: Zcta, population: number, rng: Rng): Demographics {
  const u = z.urbanity;
  const s = z.state;
  const college = rng.chance(0.008); // college towns: young, renters, "poor" students
  const retirement = !college && rng.chance(0.004);
  const blackShock = rng.normal();
  const deprivation = get(DEPRIVATION, s, 0) + 0.85 * rng.normal() + 0.25 * Math.max(0, blackShock) + (college ? 0.8 : 0);

  const landSqMi = population === 0 && rng.chance(0.5) ? rng.uniform(0.05, 3) : z.spacingSqMi * Math.exp(0.45 * rng.normal());
  const waterSqMi = rng.chance(0.12) ? 0 : landSqMi * Math.min(0.8, Math.exp(-3.6 + 1.6 * rng.normal()));

  let medianAge = 39.5 + get(AGE, s, 0) + 5 * (0.45 - u) + 3 * rng.normal();
  if (college) medianAge = rng.uniform(19.5, 25);
  if (retirement) medianAge = rng.uniform(62, 72);
  medianAge = clamp(medianAge, 16, 78);
  let pct65 = clamp(17 + 1.1 * (medianAge - 39.5) + 2.5 * rng.normal(), 0, 70);
  if (retirement) pct65 = rng.uniform(55, 85);

  const medianIncome = Math.round(72000 * Math.exp(get(INCOME, s, 0) + 0.25 * (u - 0.4) - 0.33 * deprivation + 0.12 * rng.normal()));
  const poverty = clamp(12.5 * Math.exp(0.5 * deprivation + 0.15 * rng.normal()) * (s === 'PR' ? 1.4 : 1), 0, 75);
  const hispanic = clamp(get(HISPANIC, s, 6) * Math.exp(0.7 * rng.normal() + 0.3 * (u - 0.4)), 0, 99.5);
  const black = clamp(get(BLACK, s, 4) * Math.exp(0.8 * blackShock + 1.0 * (u - 0.45)), 0, 98);
  const asian = clamp(get(ASIAN, s, 2.5) * Math.exp(0.7 * rng.normal() + 1.6 * (u - 0.45)), 0, 80);
  const other = clamp(get(OTHER_RACE, s, 2.5) * Math.exp(0.8 * rng.normal()), 0, 95);
  const white = clamp(100 - black - asian - other - 0.45 * hispanic, 0, 100);

  const uninsured = clamp(get(UNINSURED, s, 8) * Math.exp(0.3 * deprivation + 0.25 * rng.normal()) + 0.04 * hispanic, 0, 60);
  const publicIns = clamp(pct65 + 16 + 9 * deprivation + 3 * rng.normal(), 3, 92);
  const privateIns = clamp(100 - uninsured - publicIns + 0.6 * pct65 + 3 * rng.normal(), 3, 97);
  const disability = clamp(12.5 + 0.25 * (pct65 - 17) + 2.5 * deprivation + 2 * rng.normal(), 0, 55);
  // No-vehicle households: highest in the densest cores, and raised by poverty anywhere (poor rural areas too).
  const noVehicle = clamp(1.5 + 42 * u ** 5 + 0.28 * Math.max(0, poverty - 12) + 1.2 * rng.normal(), 0, 90);
  const transit = clamp(0.2 + 55 * get(TRANSIT, s, 0.3) * Math.max(0, (u - 0.62) / 0.38) ** 2.5 + 0.4 * rng.normal(), 0, 85);

  const vacancy = rng.chance(0.05) ? rng.uniform(0.3, 0.7) : rng.uniform(0.04, 0.15); // seasonal homes
  const housingUnits = population === 0 ? rng.int(25) : Math.round((population / clamp(2.55 + 0.3 * rng.normal(), 1.6, 4)) * (1 + vacancy));
  const ownerPct = round1(clamp(66 + 8 * (0.4 - u) - 25 * u ** 4 - 0.35 * (poverty - 12) + 5 * rng.normal() - (college ? 30 : 0), 2, 98));
  const homeValue = Math.round(280000 * get(HOME_VALUE, s, 1) * Math.exp(0.9 * (u - 0.4) - 0.3 * deprivation + 0.3 * rng.normal()));

  return {
    population,
    landSqMi,
    waterSqMi,
    medianAge: round1(medianAge),
    pct65,
    medianIncome,
    poverty,
    uninsured,
    privateIns,
    publicIns,
    disability,
    noVehicle,
    transit,
    housingUnits,
    ownerPct,
    homeValue,
    white,
    black,
    asian,
    hispanic,
    deprivation,
  };
}
