/**
 * What a build is checked against: independent public measures and places whose access is known. The
 * thresholds are the acceptance rules of docs/VALIDATION.md.
 */
export const VALIDATION_TARGETS = {
  /**
   * Every band holds at least this share of residents (a tenth of a percent: about 330,000 people), and none more
   * than `maxBandShare`: a scale that leaves a band empty, or puts most people in one, says nothing. The floor was
   * 0.5% while residents were placed at the middle of each ZIP's area, then 0.25% once they were placed where they
   * live. With clinicians counted where they practise (County Health Rankings' counts, 2022-2024) a ZIP is a
   * Healthcare Desert only where clinicians, a hospital and a short drive are all missing: the real-data build
   * holds 680,000 residents in 834 such ZIPs (0.20%; Presidio and Zapata TX, Mountainair NM, Buras LA), where a
   * scale without clinicians held 0.6% and the synthetic providers of the default build, drawn only in towns,
   * 0.36%.
   */
  minBandShare: 0.001,
  maxBandShare: 0.6,
  /** The population-weighted mean overall score falls from NCHS class 1 to class 6 by at least this much, step by step. */
  minUrbanRuralDrop: 20,
  /** Spearman of the hospital component against the reference drive minutes to the nearest hospital, at most. */
  maxHospitalDriveSpearman: -0.6,
  /** A frontier ZIP: at least this many reference drive minutes to the nearest hospital. */
  frontierMinutes: 90,
  /** Share of frontier ZIPs in the bottom two bands (below 50), at least. */
  minFrontierInBottomTwo: 0.95,
  /** A town: at least this many residents and a general hospital in the ZIP; none may be a Healthcare Desert. */
  townMinPopulation: 20_000,
  /** A ZIP of at least this many residents that holds an emergency hospital (by the CMS file) may not be a Healthcare Desert. */
  emergencyTownMinPopulation: 5_000,
  /** The drive-time estimate's median error against the road table, at most (percent), and its median bias, within (percent). */
  maxCalibrationErrorPct: 35,
  maxCalibrationBiasPct: 15,
  /** Regions with fewer calibration ZIPs than this are reported but not judged. */
  calibrationMinZips: 100,
  /** Below this people score a neighbourhood's social need may pull an academic medical centre ZIP below the top two bands. */
  highNeedPeopleScore: 60,
  /** Counties compared with their count files: at least this many residents (smaller ones hold a clinician or two). */
  clinicianCountyMinResidents: 10_000,
  /**
   * A county agrees with its count files when its supply in the build lies within this share of the count plus
   * one clinician as the build counts them (1 / the sample fraction); at least `minClinicianCountiesWithin` of
   * the counties must, and the nation within `clinicianNationalTolerance`. The residue is geometry: a ZIP
   * counts in the county where most of its residents live, but holds clinicians of each county it spans.
   */
  clinicianCountyTolerance: 0.1,
  minClinicianCountiesWithin: 0.9,
  clinicianNationalTolerance: 0.02,
  /** Counties ranked against their published ratios: at least this many residents. */
  clinicianRankMinResidents: 1_000,
  /**
   * Spearman of the counties' provider component against their published ratios, at least: the component also
   * weighs estimated specialists and the OB/GYN roster (three tenths of the overall score's weights) and reaches
   * 30 miles across county lines, so it cannot order counties exactly as their own ratios do.
   */
  minPublishedRatioSpearman: 0.5,
  /** A county known for too few clinicians ranks in this bottom share of counties; one known for plenty, above `highCountyPercentile`. */
  lowCountyPercentile: 0.33,
  highCountyPercentile: 0.9,
  /** The population-weighted provider component falls from NCHS class 1 to class 6 by at least this much. */
  minProviderUrbanRuralDrop: 15,
} as const;

/**
 * Counties whose clinician supply is known, by the count files themselves and by reputation: the provider
 * component must place them where their counts do.
 */
export const KNOWN_COUNTIES: ReadonlyArray<{ fips: string; name: string; expect: 'low' | 'high' | 'counted'; why: string }> = [
  {
    fips: '30033',
    name: 'Garfield County MT',
    expect: 'low',
    why: 'no primary care physician and no dentist (AHRF 2022, 2023) for 1,211 residents',
  },
  {
    fips: '48427',
    name: 'Starr County TX',
    expect: 'low',
    why: '17 primary care physicians for 65,728 residents, 1 per 3,866 (AHRF 2022)',
  },
  {
    fips: '27109',
    name: 'Olmsted County MN',
    expect: 'high',
    why: 'the Mayo Clinic: 388 primary care physicians for 164,020 residents, 1 per 423',
  },
  {
    fips: '56039',
    name: 'Teton County WY',
    expect: 'counted',
    why: '23 primary care physicians for 23,287 residents, 1 per 1,012 (the nation 1 per 1,312)',
  },
];

/**
 * ZIPs of the academic medical centres of the largest US cities, and of the centres the scores were
 * questioned on: the residents of these ZIPs have the country's largest hospitals at their door.
 */
export const ACADEMIC_MEDICAL_CENTRES: ReadonlyArray<{ zip: string; name: string }> = [
  { zip: '10021', name: 'Upper East Side, New York (Weill Cornell, Memorial Sloan Kettering)' },
  { zip: '10065', name: 'Upper East Side, New York (NewYork-Presbyterian, HSS)' },
  { zip: '10016', name: 'Kips Bay, New York (NYU Langone, Bellevue)' },
  { zip: '10032', name: 'Washington Heights, New York (Columbia, NewYork-Presbyterian)' },
  { zip: '02115', name: "Longwood, Boston (Brigham, Beth Israel Deaconess, Boston Children's)" },
  { zip: '02114', name: 'West End, Boston (Massachusetts General)' },
  { zip: '77030', name: 'Texas Medical Center, Houston' },
  { zip: '21205', name: 'East Baltimore (Johns Hopkins)' },
  { zip: '15213', name: 'Oakland, Pittsburgh (UPMC Presbyterian)' },
  { zip: '19104', name: 'University City, Philadelphia (Penn Medicine)' },
  { zip: '19107', name: 'Center City, Philadelphia (Jefferson)' },
  { zip: '60611', name: 'Streeterville, Chicago (Northwestern)' },
  { zip: '60612', name: 'Illinois Medical District, Chicago (Rush, UI Health)' },
  { zip: '90048', name: 'Los Angeles (Cedars-Sinai)' },
  { zip: '90033', name: 'Boyle Heights, Los Angeles (LAC+USC)' },
  { zip: '85006', name: 'Phoenix (Banner University Medical Center)' },
  { zip: '78229', name: 'South Texas Medical Center, San Antonio (University Hospital)' },
  { zip: '92103', name: 'Hillcrest, San Diego (UC San Diego)' },
  { zip: '75235', name: 'Southwestern Medical District, Dallas (Parkland, UT Southwestern)' },
  { zip: '94110', name: 'Mission, San Francisco (Zuckerberg San Francisco General)' },
  { zip: '98104', name: 'First Hill, Seattle (Harborview)' },
  { zip: '63110', name: 'Central West End, St. Louis (Barnes-Jewish)' },
  { zip: '55902', name: 'Rochester, Minnesota (Mayo Clinic)' },
];
