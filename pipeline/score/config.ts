import type { Category } from './specialties.ts';

/**
 * Every number the scores depend on, in one place (and stored in `meta.scoring` of each build).
 * docs/METHODOLOGY.md explains each choice.
 */

/** E2SFCA distance steps [maxMiles, weight] (Luo & Qi's 1.00 / 0.68 / 0.22 weights over three zones). */
export const PROVIDER_STEPS: Array<[number, number]> = [[10, 1], [20, 0.68], [30, 0.22]];
export const HOSPITAL_STEPS: Array<[number, number]> = [[15, 1], [30, 0.68], [60, 0.22]];
/** The longest catchment: the ZIP-to-ZIP network is built once out to this distance. */
export const NETWORK_MAX_MILES = 60;

/** A log-scale benchmark: the measure scores 0 at `zeroAt` or below and 100 at `fullAt` or above. */
export interface Benchmark {
  zeroAt: number;
  fullAt: number;
}

/**
 * Clinicians per 100,000 residents within reach. Primary care: HRSA's shortage ratio 1:3,500 (28.6 per 100k)
 * scores about 45; 1:1,000 (100 per 100k) scores 100. Specialist benchmarks scale with national supply.
 */
export const PROVIDER_BENCHMARKS: Record<Category, Benchmark> = {
  primary_care: { zeroAt: 5, fullAt: 100 },
  endocrinology: { zeroAt: 0.3, fullAt: 4 },
  dietetics: { zeroAt: 1, fullAt: 25 },
  neurology: { zeroAt: 0.5, fullAt: 6 },
  geriatrics: { zeroAt: 0.2, fullAt: 3 },
  psychiatry: { zeroAt: 1, fullAt: 15 },
  rheumatology: { zeroAt: 0.2, fullAt: 2.5 },
  orthopaedics: { zeroAt: 1, fullAt: 9 },
  pulmonology: { zeroAt: 0.4, fullAt: 4 },
  allergy: { zeroAt: 0.2, fullAt: 2 },
  pediatrics: { zeroAt: 3, fullAt: 40 },
  oncology: { zeroAt: 0.5, fullAt: 6 },
  radiation_oncology: { zeroAt: 0.2, fullAt: 2 },
  radiology: { zeroAt: 1, fullAt: 12 },
  obgyn: { zeroAt: 1.5, fullAt: 14 },
  cardiology: { zeroAt: 1, fullAt: 9 },
  nephrology: { zeroAt: 0.3, fullAt: 4 },
  urology: { zeroAt: 0.5, fullAt: 4.5 },
  thoracic_surgery: { zeroAt: 0.1, fullAt: 1.5 },
};

/**
 * Staffed beds per licensed bed, for hospitals whose only bed count is licensed (HIFLD BEDS): 0.85 is the
 * ratio of all staffed to all licensed beds over the 5,998 hospitals for which CovidCareMap 2020 gives both.
 */
export const STAFFED_PER_LICENSED_BED = 0.85;
/** Beds assumed for a general hospital no source gives a bed count for (critical access hospitals have at most 25 by law). */
export const DEFAULT_BEDS = { criticalAccess: 25, other: 100 } as const;
/**
 * A major hospital, where complex and specialist care is: a level I or II trauma centre (American College of
 * Surgeons levels, as HIFLD lists them) or a general hospital with at least 300 staffed beds.
 */
export const MAJOR_HOSPITAL = { maxTraumaLevel: 2, minBeds: 300 } as const;

/** Records of one hospital in different sources (no shared id) lie within this distance of each other. */
export const FACILITY_MATCH_MILES = 10;

/** Staffed hospital beds per 1,000 residents within reach (US average about 2.4). */
export const BEDS_BENCHMARK: Benchmark = { zeroAt: 0.3, fullAt: 4 };
/** Miles to the nearest care: 100 at 1 mile or less, 0 at 60 miles or more (log scale). */
export const DISTANCE_MILES_BENCHMARK: Benchmark = { zeroAt: 60, fullAt: 1 };

/** Composite weights: healthscore = round(sum of weight x component). They sum to 1. */
export const COMPOSITE_WEIGHTS = { people: 0.2, provider: 0.35, hospital: 0.25, travel: 0.2 } as const;

/** The 11 score types of decisions.md and the clinicians and PLACES measures each one weighs. */
export interface ScoreTypeSpec {
  id: number;
  name: string;
  slug: string;
  description: string;
  providers: Partial<Record<Category, number>>;
  /** CDC PLACES measure whose prevalence raises need in the people component (null: none). */
  prevalence: string | null;
}

export const SCORE_TYPES: ScoreTypeSpec[] = [
  { id: 1, name: 'Overall Health Score', slug: 'overall', description: 'Access to primary care, specialists, hospitals and emergency care overall.', providers: { primary_care: 0.6, psychiatry: 0.1, cardiology: 0.1, obgyn: 0.1, pediatrics: 0.1 }, prevalence: null },
  { id: 2, name: 'Type 1 Diabetes Score', slug: 'type-1-diabetes', description: 'Access to endocrinology (adult and paediatric) and primary care for Type 1 diabetes.', providers: { endocrinology: 0.6, pediatrics: 0.15, primary_care: 0.25 }, prevalence: 'DIABETES' },
  { id: 3, name: 'Type 2 Diabetes Score', slug: 'type-2-diabetes', description: 'Access to primary care, endocrinology and dietitians for Type 2 diabetes.', providers: { primary_care: 0.5, endocrinology: 0.3, dietetics: 0.2 }, prevalence: 'DIABETES' },
  { id: 4, name: 'Alzheimers Score', slug: 'alzheimers', description: "Access to neurology, geriatric medicine and psychiatry for Alzheimer's disease and dementia.", providers: { neurology: 0.45, geriatrics: 0.3, psychiatry: 0.25 }, prevalence: null },
  { id: 5, name: 'Arthritis Score', slug: 'arthritis', description: 'Access to rheumatology, orthopaedics and primary care for arthritis.', providers: { rheumatology: 0.5, orthopaedics: 0.3, primary_care: 0.2 }, prevalence: 'ARTHRITIS' },
  { id: 6, name: 'Asthma Score', slug: 'asthma', description: 'Access to pulmonology, allergy and immunology, paediatrics and primary care for asthma.', providers: { pulmonology: 0.35, allergy: 0.3, pediatrics: 0.15, primary_care: 0.2 }, prevalence: 'CASTHMA' },
  { id: 7, name: 'Breast Cancer Score', slug: 'breast-cancer', description: 'Access to oncology, breast imaging (radiology), surgical oncology and gynaecology for breast cancer.', providers: { oncology: 0.45, radiology: 0.25, obgyn: 0.15, radiation_oncology: 0.15 }, prevalence: 'CANCER' },
  { id: 8, name: 'COPD Score', slug: 'copd', description: 'Access to pulmonology and primary care for chronic obstructive pulmonary disease.', providers: { pulmonology: 0.6, primary_care: 0.4 }, prevalence: 'COPD' },
  { id: 9, name: 'Hypertension Score', slug: 'hypertension', description: 'Access to primary care, cardiology and nephrology for high blood pressure.', providers: { primary_care: 0.5, cardiology: 0.35, nephrology: 0.15 }, prevalence: 'BPHIGH' },
  { id: 10, name: 'Lung Cancer Score', slug: 'lung-cancer', description: 'Access to oncology, pulmonology, radiation oncology and thoracic surgery for lung cancer.', providers: { oncology: 0.4, pulmonology: 0.25, radiation_oncology: 0.2, thoracic_surgery: 0.15 }, prevalence: 'CSMOKING' },
  { id: 11, name: 'Prostate Cancer Score', slug: 'prostate-cancer', description: 'Access to urology, oncology and radiation oncology for prostate cancer.', providers: { urology: 0.5, oncology: 0.3, radiation_oncology: 0.2 }, prevalence: 'CANCER' },
];

/**
 * People component ("need"): each measure costs points from 100 between `noNeedAt` (0 points lost) and
 * `fullNeedAt` (all of its `weight` lost). Missing measures take the national median.
 */
export const NEED_MEASURES = [
  { measure: 'uninsured_pct', noNeedAt: 3, fullNeedAt: 25, weight: 0.3 },
  { measure: 'poverty_pct', noNeedAt: 5, fullNeedAt: 40, weight: 0.3 },
  { measure: 'age65_pct', noNeedAt: 10, fullNeedAt: 35, weight: 0.2 },
  { measure: 'disability_pct', noNeedAt: 8, fullNeedAt: 25, weight: 0.2 },
] as const;
/** Weight of condition prevalence (PLACES) in the people component of condition scores; it scales the others down. */
export const PREVALENCE_WEIGHT = 0.3;
