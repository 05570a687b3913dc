import type { Category } from './specialties.ts';

/**
 * Every number the scores depend on, in one place (and stored in `meta.scoring` of each build).
 * docs/METHODOLOGY.md explains each choice; scoring-parts.ts, beside this file, which parts of the score each
 * one moves (a new constant does not compile without its parts there).
 */

/** E2SFCA distance steps [maxMiles, weight] (Luo & Qi's 1.00 / 0.68 / 0.22 weights over three zones). */
export const PROVIDER_STEPS: Array<[number, number]> = [
  [10, 1],
  [20, 0.68],
  [30, 0.22],
];
export const HOSPITAL_STEPS: Array<[number, number]> = [
  [15, 1],
  [30, 0.68],
  [60, 0.22],
];
/** The longest catchment: the ZIP-to-ZIP network is built once out to this distance. */
export const NETWORK_MAX_MILES = 60;

/** A log-scale benchmark: the measure scores 0 at `zeroAt` or below and 100 at `fullAt` or above. */
export interface Benchmark {
  zeroAt: number;
  fullAt: number;
}

/**
 * Clinicians per 100,000 residents nationally, by category, as the provider files count them (active
 * physicians, and the nurse practitioners, physician assistants, dietitians, dentists and mental health
 * providers whose NUCC codes the category lists). Approximate and rounded: physicians from the AAMC Physician
 * Specialty Data Report (2022, active physicians by specialty), dietitians and specialist nurse practitioners
 * from BLS Occupational Employment and Wage Statistics (May 2023) with AANP's share of NPs in primary care,
 * primary care, mental health providers and dentists from the national rows of the County Health Rankings
 * measure files (HRSA Area Health Resources File 2022 and 2023, NPPES June 2024), over a population of 333
 * million. They set the provider benchmarks, the coverage check, the estimated categories' national counts
 * and the synthetic sample's densities.
 */
export const EXPECTED_DENSITY: Record<Category, number> = {
  // Physicians in family medicine, general practice, internal medicine and paediatrics (AHRF 2022: 253,985, 76
  // per 100,000), and primary care NPs and PAs (NPPES June 2024: 468,761, 140) at NP_PA_PRIMARY_CARE_WEIGHT.
  primary_care: 180,
  // Mental health providers of measure v062's 27 NPPES codes (June 2024: 1,113,571, 332 per 100,000).
  behavioral_health: 330,
  // Dentists with an NPI (AHRF 2023: 249,826, 75 per 100,000).
  dentistry: 75,
  endocrinology: 2.8,
  dietetics: 22,
  neurology: 5,
  geriatrics: 2.5,
  // Psychiatrists (~12) and psychiatric-mental health NPs (~6).
  psychiatry: 18,
  rheumatology: 1.9,
  orthopaedics: 6,
  pulmonology: 4.5,
  allergy: 1.4,
  pediatrics: 24,
  oncology: 6,
  radiation_oncology: 1.6,
  radiology: 8.5,
  // Obstetrician-gynaecologists (~13) and women's health NPs (~3).
  obgyn: 16,
  cardiology: 8.5,
  nephrology: 3.3,
  urology: 3,
  thoracic_surgery: 1.4,
};

/**
 * A nurse practitioner or physician assistant in primary care counts as this share of a primary care
 * physician: the weight the Negotiated Rulemaking Committee on the Designation of Medically Underserved
 * Populations and Health Professional Shortage Areas (HRSA, final report 2011) gave primary care NPs, PAs and
 * certified nurse midwives beside physicians in its population-to-provider ratio.
 */
export const NP_PA_PRIMARY_CARE_WEIGHT = 0.75;

/**
 * Categories no count file counts on its own, estimated from a total that includes them where no roster or
 * count of their own is given: the category's national count (EXPECTED_DENSITY over the build's residents)
 * placed where that total's clinicians practise. Paediatrics and geriatrics practise where primary care
 * physicians do (the Dartmouth Atlas counts general paediatricians and geriatricians among them); every
 * physician specialty where specialists do (the Dartmouth Atlas's specialist total per census tract).
 * Dietetics has no such total: without a roster of dietitians it has no source and is left out.
 */
export const ESTIMATED_FROM: Readonly<Partial<Record<Category, 'primary_care_physicians' | 'specialist_physicians'>>> = {
  pediatrics: 'primary_care_physicians',
  geriatrics: 'primary_care_physicians',
  endocrinology: 'specialist_physicians',
  neurology: 'specialist_physicians',
  psychiatry: 'specialist_physicians',
  rheumatology: 'specialist_physicians',
  orthopaedics: 'specialist_physicians',
  pulmonology: 'specialist_physicians',
  allergy: 'specialist_physicians',
  oncology: 'specialist_physicians',
  radiation_oncology: 'specialist_physicians',
  radiology: 'specialist_physicians',
  obgyn: 'specialist_physicians',
  cardiology: 'specialist_physicians',
  nephrology: 'specialist_physicians',
  urology: 'specialist_physicians',
  thoracic_surgery: 'specialist_physicians',
};

/**
 * Care a resident finds near home: the travel component's specialist part leaves these categories out (their
 * nearest clinician is the primary care part's concern, or as common as a dentist's office), so a score type's
 * specialist care is its physician specialties. General paediatricians and geriatricians are primary care
 * physicians (the Dartmouth Atlas and the AHRF count them so, and ESTIMATED_FROM places them where primary care
 * physicians practise): counted as specialist care, the fraction of a paediatrician every town with a family
 * doctor holds made Clayton NM (206 minutes from a major hospital) a place of specialist care.
 */
export const LOCAL_CARE_CATEGORIES: readonly Category[] = ['primary_care', 'behavioral_health', 'dentistry', 'pediatrics', 'geriatrics'];

/**
 * A record's provider component is scored where primary care has a source in its ZIP and the categories with a
 * source carry at least this share of the score type's clinician weights; elsewhere it is null and the
 * composite rests on the other components (Puerto Rico has an OB/GYN roster and no count of anything else).
 */
export const PROVIDER_MIN_SOURCED_WEIGHT = 0.5;

/**
 * A ZIP is a place of a kind of care (the nearest primary care, the nearest specialist) when the clinicians of
 * one category placed in it add up to at least this many: a county's count spread by residents leaves a fraction
 * of a clinician in every ZIP of the county, and a fraction of a clinician is not a practice to drive to (nor are
 * fractions of three specialties added together).
 */
export const PLACE_OF_CARE_MIN_CLINICIANS = 0.5;

/**
 * Clinicians per 100,000 residents within reach, scored on a log scale from a tenth of the national density
 * (0) to twice it (100): the national density scores 77, half of it 54, a quarter 31.
 */
export const PROVIDER_BENCHMARK_SPAN = { zeroAtShare: 0.1, fullAtShare: 2 } as const;
export const PROVIDER_BENCHMARKS = Object.fromEntries(
  Object.entries(EXPECTED_DENSITY).map(([category, density]) => [
    category,
    {
      zeroAt: +(density * PROVIDER_BENCHMARK_SPAN.zeroAtShare).toPrecision(6),
      fullAt: +(density * PROVIDER_BENCHMARK_SPAN.fullAtShare).toPrecision(6),
    },
  ]),
) as Record<Category, Benchmark>;

/**
 * When the provider component can be scored, and when a roster (NPPES, Doctors and Clinicians) is the source
 * of a category. A roster is complete for a category when it holds at least half its expected national
 * density; for primary care also when every state of 500,000 residents or more holds between a third and three
 * times the expected density: wide enough for the real differences between states, narrow enough to catch
 * files that cover some states and not others. A category without a complete roster takes a count, then an
 * estimate (config ESTIMATED_FROM). The component is scored when primary care has a source and at least three
 * quarters of the categories have one.
 */
export const COVERAGE = {
  minNationalShare: 0.5,
  minCategoriesShare: 0.75,
  stateMinPopulation: 500_000,
  stateShareRange: [1 / 3, 3],
} as const;

/** Each health centre (HRSA) site counts as this many primary care clinicians: a floor for safety-net capacity. */
export const HEALTH_CENTER_CLINICIANS = 1;

/** Records of one hospital in different sources (no shared id) lie within this distance of each other. */
export const FACILITY_MATCH_MILES = 10;

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

/**
 * Staffed hospital beds per 1,000 residents within reach, log scale: 0.3 scores 0, 3 or more scores 100
 * (the US has about 2.4 staffed beds per 1,000 residents, which scores 90).
 */
export const BEDS_BENCHMARK: Benchmark = { zeroAt: 0.3, fullAt: 3 };

/** A linear time benchmark: 100 at `fullAt` minutes or less, 0 at `zeroAt` minutes or more. */
export interface TimeBenchmark {
  fullAt: number;
  zeroAt: number;
}

/**
 * A ZIP's residents are placed at HUD's population-weighted point of the same-numbered USPS ZIP when it lies
 * within `radii` times the radius of a disc with the ZCTA's land area, plus `miles`, of the ZCTA's internal
 * point; else at the internal point (docs/METHODOLOGY.md, "Where residents are"). Generous on purpose: a ZCTA
 * is often long and thin (the Florida Keys, a valley) and its residents at one end; the rule only catches
 * points in the wrong place altogether (HUD's Guam rows, rural route ZIPs around a small town's ZCTA).
 * Unless the internal point is the one astray: a ZCTA with a far-off piece (2020's 99503, midtown Anchorage,
 * holds land in Bethel Census Area) can have its internal point there. HUD's point is then kept when the
 * internal point lies over `strayMiles` from every 2020 tract centre of population of the ZIP's home county
 * and HUD's within `amongMiles` of one (where the census counted its residents).
 */
export const RESIDENTS_POINT_TOLERANCE = { radii: 3, miles: 10, strayMiles: 25, amongMiles: 5 } as const;

/** No trip to care is shorter than this: a care point at or next to a ZIP's residents' point is a short drive away. */
export const MIN_TRIP_MILES = 0.25;
/**
 * Two nearest facilities this close in straight-line miles are the same trip: a road table's minutes to the
 * nearest hospital stand for the nearest emergency department when that is no farther than this beyond it.
 */
export const SAME_TRIP_MILES = 1;

/**
 * When a road-network table's row for a ZIP describes the trip from its residents' point. The tables (HEROP
 * Hosp-ZIP25, Fqhc-ZIP25) average over the ZIP's area; a row is used where its own straight-line miles agree
 * with the straight-line miles from the residents' point to the nearest facility of its kind, within
 * `agreeShare` of them or `agreeMiles`. A table without a miles column is used only for a ZIP small beside the
 * trip (disc radius at most `radiusShare` of the miles, or `radiusMiles`) whose residents' point lies near the
 * middle of its area (at most `offsetShare` of the miles from the internal point, or `offsetMiles`).
 */
export const ROAD_TABLE_DESCRIBES_RESIDENTS = {
  agreeShare: 0.25,
  agreeMiles: 1,
  radiusShare: 0.75,
  radiusMiles: 2,
  offsetShare: 0.2,
  offsetMiles: 1,
} as const;

/**
 * Straight-line miles to drive minutes where no road table describes a ZIP's residents, by the ZIP's own
 * population density (residents per square mile of land, at least `minDensity`): a circuity factor over a
 * speed, measured as the median ratio of the HEROP hospital table's drive minutes (2025) to the straight-line
 * miles from HUD's residents' point (2021) to the nearest general hospital, over the 21,000 ZIPs whose table
 * row describes their residents (ROAD_TABLE_DESCRIBES_RESIDENTS). At a circuity of 1.3 that is 32 mph of road
 * in the densest ZIPs and 42 mph in the emptiest. The ZIP's own density, not its county's urban-rural class:
 * a county of a large metro can be mostly desert (Pima County AZ holds Tucson and the Tohono O'odham Nation).
 * The validation report measures these factors' error against the table on every build (docs/METHODOLOGY.md,
 * "Drive times").
 */
export const MINUTES_PER_STRAIGHT_MILE_BY_DENSITY: ReadonlyArray<{ minDensity: number; minutesPerMile: number }> = [
  { minDensity: 3000, minutesPerMile: 2.45 },
  { minDensity: 1000, minutesPerMile: 2.3 },
  { minDensity: 250, minutesPerMile: 2.05 },
  { minDensity: 50, minutesPerMile: 1.9 },
  { minDensity: 0, minutesPerMile: 1.85 },
];
/** The same for a ZIP without a population: the median ratio over all the ZIPs above. */
export const MINUTES_PER_STRAIGHT_MILE = 2.0;
/**
 * Minutes to the nearest emergency department and to the nearest place of primary care: full marks within
 * 5 minutes, none at 40 (the distance rule of critical access hospitals is 35 miles, about 40 minutes' drive).
 */
export const CARE_MINUTES: TimeBenchmark = { fullAt: 5, zeroAt: 40 };
/**
 * Minutes to specialist care: the nearest clinician of the score type's specialties when the provider files
 * are measured, else the nearest major hospital (trauma centre level I-II or 300+ beds), where specialists
 * practise. Full marks within 15 minutes, none at 90 (beyond the "golden hour" of trauma care, with margin).
 */
export const SPECIALIST_MINUTES: TimeBenchmark = { fullAt: 15, zeroAt: 90 };
/** Hospital ratings count within this distance (the CMS star rating of the hospitals people would use). */
export const RATING_RADIUS_MILES = 30;

/**
 * Hospital component: beds per 1,000 within reach (E2SFCA), minutes to the nearest emergency department,
 * minutes to the nearest major hospital (SPECIALIST_MINUTES scale), and the mean star rating nearby. A ZIP
 * with no rated hospital in reach leaves quality out and renormalises the rest: a missing rating is neutral, never 0.
 */
export const HOSPITAL_WEIGHTS = { beds: 0.3, emergency: 0.4, major: 0.15, quality: 0.15 } as const;

/**
 * Travel component: how soon a resident reaches care (70%: half the minutes to the nearest place of primary
 * care, half the minutes to specialist care) and whether they can travel at all (30%: mobility).
 */
export const TRAVEL_WEIGHTS = { care: 0.7, mobility: 0.3 } as const;

/**
 * Mobility: the share of households without a vehicle, offset by transit. Transit use by 20% of commuters or
 * more (dense transit cities) fully offsets going without a car; less offsets in proportion. The remaining
 * gap costs the whole mobility score at 10% of households. A ZIP with no measured vehicle share takes the
 * worst measured share (missing is never better than the worst measured value); missing transit counts as none.
 */
export const MOBILITY = { transitFullAt: 20, gapZeroAt: 10 } as const;

/**
 * ZIPs with fewer residents than this (ACS estimate) are flagged: their ACS percentages rest on a handful of
 * households, so they are kept out of rankings, state averages and top-vulnerable lists, as the SVI leaves
 * out tracts without population, and their records say why.
 */
export const SMALL_POPULATION = 100;

/**
 * The composite. Access is the weighted mean of the provider, hospital and travel components (weights in
 * twentieths: 7, 6, 4; renormalised over the components present); the people component then scales it,
 * realised access being potential access reduced by social need:
 *   healthscore = round_half_up(access x (0.55 + 0.45 x people / 100)).
 * So no affluence makes up for the absence of care (a ZIP an hour from any hospital stays low), and the best
 * access in the nation needs both care nearby and low need.
 */
export const COMPOSITE_WEIGHTS = { provider: 7, hospital: 6, travel: 4 } as const;
export const PEOPLE_FLOOR = 0.55;

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
  {
    id: 1,
    name: 'Overall Health Score',
    slug: 'overall',
    description: 'Access to primary care, mental health and dental care, specialists, hospitals and emergency care overall.',
    providers: { primary_care: 0.5, behavioral_health: 0.1, dentistry: 0.1, obgyn: 0.1, pediatrics: 0.1, cardiology: 0.1 },
    prevalence: null,
  },
  {
    id: 2,
    name: 'Type 1 Diabetes Score',
    slug: 'type-1-diabetes',
    description: 'Access to endocrinology (adult and paediatric) and primary care for Type 1 diabetes.',
    providers: { endocrinology: 0.6, pediatrics: 0.15, primary_care: 0.25 },
    prevalence: 'DIABETES',
  },
  {
    id: 3,
    name: 'Type 2 Diabetes Score',
    slug: 'type-2-diabetes',
    description: 'Access to primary care, endocrinology and dietitians for Type 2 diabetes.',
    providers: { primary_care: 0.5, endocrinology: 0.3, dietetics: 0.2 },
    prevalence: 'DIABETES',
  },
  {
    id: 4,
    name: 'Alzheimers Score',
    slug: 'alzheimers',
    description: "Access to neurology, geriatric medicine and psychiatry for Alzheimer's disease and dementia.",
    providers: { neurology: 0.45, geriatrics: 0.3, psychiatry: 0.25 },
    prevalence: null,
  },
  {
    id: 5,
    name: 'Arthritis Score',
    slug: 'arthritis',
    description: 'Access to rheumatology, orthopaedics and primary care for arthritis.',
    providers: { rheumatology: 0.5, orthopaedics: 0.3, primary_care: 0.2 },
    prevalence: 'ARTHRITIS',
  },
  {
    id: 6,
    name: 'Asthma Score',
    slug: 'asthma',
    description: 'Access to pulmonology, allergy and immunology, paediatrics and primary care for asthma.',
    providers: { pulmonology: 0.35, allergy: 0.3, pediatrics: 0.15, primary_care: 0.2 },
    prevalence: 'CASTHMA',
  },
  {
    id: 7,
    name: 'Breast Cancer Score',
    slug: 'breast-cancer',
    description: 'Access to oncology, breast imaging (radiology), surgical oncology and gynaecology for breast cancer.',
    providers: { oncology: 0.45, radiology: 0.25, obgyn: 0.15, radiation_oncology: 0.15 },
    prevalence: 'CANCER',
  },
  {
    id: 8,
    name: 'COPD Score',
    slug: 'copd',
    description: 'Access to pulmonology and primary care for chronic obstructive pulmonary disease.',
    providers: { pulmonology: 0.6, primary_care: 0.4 },
    prevalence: 'COPD',
  },
  {
    id: 9,
    name: 'Hypertension Score',
    slug: 'hypertension',
    description: 'Access to primary care, cardiology and nephrology for high blood pressure.',
    providers: { primary_care: 0.5, cardiology: 0.35, nephrology: 0.15 },
    prevalence: 'BPHIGH',
  },
  {
    id: 10,
    name: 'Lung Cancer Score',
    slug: 'lung-cancer',
    description: 'Access to oncology, pulmonology, radiation oncology and thoracic surgery for lung cancer.',
    providers: { oncology: 0.4, pulmonology: 0.25, radiation_oncology: 0.2, thoracic_surgery: 0.15 },
    prevalence: 'CSMOKING',
  },
  {
    id: 11,
    name: 'Prostate Cancer Score',
    slug: 'prostate-cancer',
    description: 'Access to urology, oncology and radiation oncology for prostate cancer.',
    providers: { urology: 0.5, oncology: 0.3, radiation_oncology: 0.2 },
    prevalence: 'CANCER',
  },
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

/**
 * Prevalence need in a condition score's people component: none at half the national median prevalence or
 * less, full at twice it or more (linear in the ratio between).
 */
export const PREVALENCE_NEED = { noneAtRatio: 0.5, fullAtRatio: 2 } as const;

/**
 * Hospital types that count as general hospitals (beds, emergency departments, ratings): acute care,
 * critical access, children's, Veterans Affairs, Defense, military and women's hospitals, by the words of
 * their CMS or HIFLD type. Psychiatric, rehabilitation and long-term care hospitals do not. Rural Emergency
 * Hospitals count as emergency departments with no beds.
 */
export const GENERAL_HOSPITAL_TYPES = ['acute', 'critical', 'children', 'general', 'veterans', 'defense', 'military', 'women'] as const;
export const EMERGENCY_ONLY_TYPES = ['rural emergency'] as const;

/** Weights of the five TVI sub-scores in `tvi_score` (they sum to 1). */
export const TVI_WEIGHTS = {
  vehicle: 0.25,
  transit: 0.15,
  facility_distance: 0.25,
  population_vulnerability: 0.2,
  health_outcome: 0.15,
} as const;
/** PLACES measures averaged (as percentile ranks) into the TVI health outcome sub-score, those the build has. */
export const TVI_HEALTH_MEASURES = ['DIABETES', 'COPD', 'CHD', 'BPHIGH', 'CASTHMA', 'OBESITY', 'CSMOKING', 'DEPRESSION'] as const;
