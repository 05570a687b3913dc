/**
 * Synthetic facilities: hospitals (the CMS list, most of them also in HIFLD, plus HIFLD-only rehab, long
 * term care and military hospitals) and HRSA health center sites. Acute hospitals sit in towns and cities,
 * critical access hospitals in rural hubs away from other hospitals, children's hospitals in big cities,
 * and health center sites lean towards poorer and rural places.
 */
import KDBush from 'kdbush';
import * as geokdbush from 'geokdbush';
import type { Geography, Zcta } from './geography.ts';
import type { Demographics } from './census-model.ts';
import type { Placement } from './placement.ts';
import { KM_PER_MILE, distanceMiles } from './geography.ts';
import { Rng, WeightedSampler, clamp, pickWeighted } from './prng.ts';
import { stateInfo } from './states.ts';
import { facilityName, streetAddress, phoneNumber, postalZip, type CmsHospitalType } from './facility-names.ts';

/** One hospital; `cmsType` is set for hospitals in the CMS file, `inHifld` for those in HIFLD. */
export interface Hospital {
  cmsType?: CmsHospitalType;
  /** CMS certification number ("330101", VA/DoD like "01014F"). */
  ccn: string;
  hifldType: string;
  inHifld: boolean;
  name: string;
  address: string;
  zcta: Zcta;
  zip: string;
  city: string;
  state: string;
  phone: string;
  lat: number;
  lon: number;
  beds: number;
  /** PECOS-style 10-digit group PAC ID, used by Doctors and Clinicians affiliations. */
  pacId: string;
}

/** One HRSA health center site. */
export interface HealthCenterSite {
  name: string;
  zcta: Zcta;
  city: string;
  state: string;
  address: string;
  phone: string;
  lat: number;
  lon: number;
}

/** All facilities plus look-ups used by the provider files. */
export interface Facilities {
  hospitals: Hospital[];
  sites: HealthCenterSite[];
  /** Hospital beds per ZCTA index (anchors nurses and hospital-based physicians). */
  bedsByZcta: Float64Array;
  /** The nearest CMS hospital within a distance, if any. */
  nearestCmsHospital(lon: number, lat: number, miles: number): Hospital | undefined;
}

const CMS_MIX: [CmsHospitalType, number][] = [
  ['Acute Care Hospitals', 0.57],
  ['Critical Access Hospitals', 0.25],
  ['Psychiatric', 0.11],
  ['Acute Care - Veterans Administration', 0.025],
  ['Childrens', 0.016],
  ['Acute Care - Department of Defense', 0.007],
];
const HIFLD_TYPE: Record<CmsHospitalType, string> = {
  'Acute Care Hospitals': 'GENERAL ACUTE CARE',
  'Critical Access Hospitals': 'CRITICAL ACCESS',
  Childrens: 'CHILDREN',
  Psychiatric: 'PSYCHIATRIC',
  'Acute Care - Veterans Administration': 'MILITARY',
  'Acute Care - Department of Defense': 'MILITARY',
};
const HIFLD_ONLY_MIX: [string, number][] = [
  ['REHABILITATION', 0.3],
  ['LONG TERM CARE', 0.3],
  ['PSYCHIATRIC', 0.12],
  ['MILITARY', 0.1],
  ['SPECIAL', 0.12],
  ['WOMEN', 0.03],
  ['CHRONIC DISEASE', 0.03],
];
// CCN number ranges by type (the real numbering scheme); VA and DoD use "F" facility numbers.
const CCN_START: Record<string, number> = { acute: 1, cah: 1300, childrens: 3300, psych: 4000, federal: 1, other: 2000 };

/** Builds hospitals and health center sites; `total` is the --facilities count. */
export function buildFacilities(
  geo: Geography,
  demo: readonly Demographics[],
  placement: Placement,
  total: number,
  seed: number,
): Facilities {
  const rng = new Rng(seed, 'facilities');
  const nCms = Math.round(total * 0.07);
  const nHifldOnly = Math.round(nCms * 0.3);
  const nSites = Math.max(0, total - nCms - nHifldOnly);
  const { catchment } = placement;
  const zctas = geo.zctas;
  const sampler = (f: (z: Zcta, c: number) => number) => new WeightedSampler(zctas.map((z) => f(z, catchment[z.index]!)));

  const samplers: Record<string, WeightedSampler> = {
    acute: sampler((z, c) => (c >= 6000 ? c ** 1.1 : 0)),
    cah: sampler((z, c) => (z.urbanity < 0.45 && c >= 600 && c <= 40_000 ? c ** 0.5 : 0)),
    city: sampler((z, c) => (c >= 20_000 ? c * (0.3 + z.urbanity) : 0)),
    bigCity: sampler((z, c) => (c >= 60_000 ? c ** 1.5 * z.urbanity : 0)),
    base: sampler((z, c) => (c >= 3000 ? c ** 0.6 : 0)),
  };
  const placed: Hospital[] = [];
  const usedNames = new Set<string>();
  const counters = new Map<string, number>();
  const nextCcn = (state: string, range: string): string => {
    const key = `${state}|${range}`;
    const n = (counters.get(key) ?? CCN_START[range]!) + rng.between(1, 3);
    counters.set(key, n);
    const prefix = stateInfo(state).ccn;
    return range === 'federal' ? `${prefix}${String(n % 1000).padStart(3, '0')}F` : `${prefix}${String(n % 10000).padStart(4, '0')}`;
  };

  const placeHospital = (kind: string, cmsType: CmsHospitalType | undefined, hifldType: string) => {
    const s = samplers[kind]!;
    let z = zctas[s.sample(rng)]!;
    // Critical access hospitals are, by rule, far from other hospitals: retry when one is close.
    for (let tries = 0; kind === 'cah' && tries < 30 && placed.some((h) => near(h, z, 15)); tries++) z = zctas[s.sample(rng)]!;
    const range = ccnRange(cmsType);
    const name = facilityName(rng, hifldType, cmsType, z, usedNames);
    const zip = postalZip(rng, geo, z, 0.06);
    const spread = clamp(Math.sqrt(demo[z.index]!.landSqMi) / 69 / 3, 0.002, 0.04);
    const h: Hospital = {
      cmsType,
      ccn: nextCcn(z.state, range),
      hifldType,
      inHifld: !cmsType || rng.chance(0.95),
      name,
      address: streetAddress(rng, true),
      zcta: z,
      zip,
      city: (geo.postalByZip.get(zip)?.city ?? z.city).toUpperCase(),
      state: z.state,
      phone: phoneNumber(rng, z),
      lat: z.lat + rng.uniform(-spread, spread),
      lon: z.lon + rng.uniform(-spread, spread),
      beds: hospitalBeds(rng, hifldType, catchment[z.index]!),
      pacId: rng.between(1, 9) + rng.digits(9),
    };
    placed.push(h);
  };

  const cmsTypes = Array.from({ length: nCms }, () => pickWeighted(rng, CMS_MIX));
  // Acute hospitals first, so critical access hospitals can keep their distance from them.
  cmsTypes.sort((a, b) => CMS_MIX.findIndex(([t]) => t === a) - CMS_MIX.findIndex(([t]) => t === b));
  for (const t of cmsTypes) placeHospital(placeKind(t), t, HIFLD_TYPE[t]);
  for (let i = 0; i < nHifldOnly; i++) {
    const type = pickWeighted(rng, HIFLD_ONLY_MIX);
    placeHospital(type === 'MILITARY' ? 'base' : 'city', undefined, type);
  }
  // The CMS file lists hospitals by CCN; keep that order for every hospital list.
  placed.sort((a, b) => (a.ccn < b.ccn ? -1 : a.ccn > b.ccn ? 1 : 0));

  // After the hospitals: the random draws come in the same order as ever (same seed, same files).
  const sites = healthCenterSites(geo, demo, placement, nSites, rng);
  const bedsByZcta = new Float64Array(zctas.length);
  for (const h of placed) bedsByZcta[h.zcta.index] += Math.max(h.beds, 10);
  return { hospitals: placed, sites, bedsByZcta, nearestCmsHospital: nearestOf(placed.filter((h) => h.cmsType)) };
}

/** The CCN number range of a hospital of a CMS type (none: a HIFLD-only hospital). */
function ccnRange(cmsType: CmsHospitalType | undefined): string {
  if (cmsType === 'Critical Access Hospitals') return 'cah';
  if (cmsType === 'Childrens') return 'childrens';
  if (cmsType === 'Psychiatric') return 'psych';
  if (cmsType?.startsWith('Acute Care -')) return 'federal';
  return cmsType ? 'acute' : 'other';
}

/** Which sampler places a hospital of a CMS type: where such hospitals stand. */
function placeKind(t: CmsHospitalType): string {
  if (t === 'Acute Care Hospitals') return 'acute';
  if (t === 'Critical Access Hospitals') return 'cah';
  if (t === 'Childrens') return 'bigCity';
  if (t === 'Acute Care - Department of Defense') return 'base';
  return 'city';
}

/** Health center sites, drawn where people are poor and the land rural, near the people they serve. */
function healthCenterSites(
  geo: Geography,
  demo: readonly Demographics[],
  placement: Placement,
  count: number,
  rng: Rng,
): HealthCenterSite[] {
  const { catchment, residual } = placement;
  const zctas = geo.zctas;
  const siteSampler = new WeightedSampler(
    zctas.map((z) => {
      const d = demo[z.index]!;
      const need = (Math.max(d.poverty, 3) / 12) ** 1.3 * (z.urbanity < 0.35 ? 1.8 : 1);
      return (catchment[z.index]! ** 0.85 + 0.05 * residual[z.index]!) * need;
    }),
  );
  const sites: HealthCenterSite[] = [];
  for (let i = 0; i < count; i++) {
    const z = zctas[siteSampler.sample(rng)]!;
    const spread = clamp(Math.sqrt(demo[z.index]!.landSqMi) / 69 / 3, 0.002, 0.05);
    sites.push({
      name: facilityName(rng, 'HEALTH CENTER', undefined, z),
      zcta: z,
      city: z.city,
      state: z.state,
      address: streetAddress(rng, false),
      phone: rng.chance(0.03) ? '' : phoneNumber(rng, z).replace(/^\((\d{3})\) (\d{3})-/, '$1-$2-'),
      lat: z.lat + rng.uniform(-spread, spread),
      lon: z.lon + rng.uniform(-spread, spread),
    });
  }

  return sites;
}

/** The nearest CMS hospital within some miles of a point (the providers' hospital affiliations). */
function nearestOf(cms: Hospital[]): Facilities['nearestCmsHospital'] {
  const index = new KDBush(Math.max(1, cms.length));
  for (const h of cms) index.add(h.lon, h.lat);
  if (cms.length === 0) index.add(0, 0);
  index.finish();
  return (lon: number, lat: number, miles: number) => {
    const [i] = geokdbush.around(index, lon, lat, 1, miles * KM_PER_MILE);
    return i === undefined ? undefined : cms[i];
  };
}

function near(h: Hospital, z: Zcta, miles: number): boolean {
  return Math.abs(h.lat - z.lat) < miles / 60 && distanceMiles(h.lon, h.lat, z.lon, z.lat) < miles;
}

/** Staffed beds: critical access hospitals are capped at 25 by rule; big-city hospitals are larger. */
function hospitalBeds(rng: Rng, type: string, catchment: number): number {
  const scale = clamp(Math.log10(Math.max(catchment, 1000)) - 3, 0.3, 3);
  const median: Record<string, number> = {
    'GENERAL ACUTE CARE': 90 * scale,
    'CRITICAL ACCESS': 18,
    PSYCHIATRIC: 70,
    CHILDREN: 180,
    MILITARY: 90,
    REHABILITATION: 50,
    'LONG TERM CARE': 45,
    SPECIAL: 25,
    WOMEN: 60,
    'CHRONIC DISEASE': 80,
  };
  const beds = Math.round((median[type] ?? 50) * Math.exp(0.6 * rng.normal()));
  return type === 'CRITICAL ACCESS' ? clamp(beds, 4, 25) : clamp(beds, 6, 1800);
}
