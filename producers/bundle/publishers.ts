/**
 * Who published each bundled dataset, by manifest source key, for raw/public/provenance.json. The page,
 * licence and repository a file came from are per-source fields of raw/manifests/shared-data.json
 * (`source_url`, `licence`, `retrieved_from`), which the build also records in `meta.sources`.
 */
export const PUBLISHERS: Readonly<Record<string, { publisher: string; dataset: string }>> = {
  gazetteer: { publisher: 'US Census Bureau', dataset: '2023 Gazetteer Files: ZIP Code Tabulation Areas' },
  zip_zcta: { publisher: 'UDS Mapper (John Snow, Inc., for HRSA health centre data)', dataset: 'ZIP Code to ZCTA Crosswalk, 2021' },
  zip_city: { publisher: 'uszipcode project (Sanhe Hu), via the zipcodeR R package', dataset: 'uszipcode simple ZIP code database' },
  zip_county: {
    publisher: 'US Department of Housing and Urban Development (HUD PD&R)',
    dataset: 'HUD USPS ZIP Code Crosswalk Files: ZIP to county, 2020 Q4',
  },
  zip_residents_point: {
    publisher: 'US Department of Housing and Urban Development (HUD PD&R)',
    dataset: 'ZIP Code Population Weighted Centroids (USPS residential addresses, Q4 2021)',
  },
  reference_tract_centres: {
    publisher: 'US Census Bureau',
    dataset: 'Centers of Population by census tract, 2020 Census (CenPop2020_Mean_TR)',
  },
  zcta_county: { publisher: 'US Census Bureau, via the zctaCrosswalk R package', dataset: '2020 ZCTA to County Relationship File' },
  county_cbsa: {
    publisher: 'Office of Management and Budget (OMB), published by the US Census Bureau',
    dataset: 'Core based statistical areas delineation file, July 2023',
  },
  county_urban_rural: {
    publisher: 'CDC National Center for Health Statistics (NCHS)',
    dataset: 'NCHS Urban-Rural Classification Scheme for Counties, 2023',
  },
  zip_ruca: {
    publisher: 'USDA Economic Research Service, via the Opioid Environment Policy Scan (OEPS)',
    dataset: 'Rural-Urban Commuting Area Codes 2010 per ZIP/ZCTA (OEPS BE02)',
  },
  acs_population_income: {
    publisher: 'US Census Bureau (American Community Survey)',
    dataset: 'ACS 5-year total population and median household income per ZCTA',
  },
  acs_population_2021: {
    publisher: 'US Census Bureau (American Community Survey)',
    dataset: 'ACS 2017-2021 5-year total population per ZCTA',
  },
  acs_demographics: {
    publisher: 'Opioid Environment Policy Scan (OEPS), from the US Census Bureau ACS',
    dataset: 'OEPS DS01 demographics per ZCTA, ACS 2014-2018',
  },
  acs_economics: {
    publisher: 'Opioid Environment Policy Scan (OEPS), from the US Census Bureau ACS',
    dataset: 'OEPS EC03 economic indicators per ZCTA, ACS 2014-2018',
  },
  acs_housing: {
    publisher: 'Opioid Environment Policy Scan (OEPS), from the US Census Bureau ACS',
    dataset: 'OEPS BE01 housing per ZCTA, ACS 2014-2018',
  },
  acs_insurance: {
    publisher: 'Healthy Regions & Policies Lab (HEROP), from the US Census Bureau ACS',
    dataset: 'Health insurance coverage per ZCTA (ACS DP03), 2014-2018',
  },
  acs_commuting: {
    publisher: 'Healthy Regions & Policies Lab (HEROP), from the US Census Bureau ACS',
    dataset: 'Vehicle availability and commuting per ZCTA (ACS B08201/B08101), 2014-2018',
  },
  acs_internet: {
    publisher: 'Healthy Regions & Policies Lab (HEROP), from the US Census Bureau ACS',
    dataset: 'Computer and broadband access per ZCTA, 2014-2018',
  },
  hospital_drive_times: {
    publisher: 'Healthy Regions & Policies Lab (HEROP), OEPS',
    dataset: 'Drive time to the nearest hospital per ZIP, 2025',
  },
  health_center_drive_times: {
    publisher: 'Healthy Regions & Policies Lab (HEROP), OEPS',
    dataset: 'Drive time to the nearest federally qualified health centre per ZIP, 2025',
  },
  reference_hospital_access: {
    publisher: 'Opioid Environment Policy Scan (OEPS)',
    dataset: 'OEPS Access03: distance and drive time to the nearest hospital per ZCTA',
  },
  reference_svi: {
    publisher: 'CDC/ATSDR, via the Opioid Environment Policy Scan (OEPS)',
    dataset: 'Social Vulnerability Index 2022 per ZCTA',
  },
  places: { publisher: 'CDC (PLACES: Local Data for Better Health)', dataset: 'PLACES ZCTA data, GIS-friendly format, 2022 release' },
  nucc: { publisher: 'National Uniform Claim Committee (NUCC)', dataset: 'Health Care Provider Taxonomy code set, version 25.1' },
  cms_hospitals: { publisher: 'Centers for Medicare & Medicaid Services (CMS)', dataset: 'Care Compare: Hospital General Information' },
  hifld_hospitals: { publisher: 'US Department of Homeland Security (HIFLD Open)', dataset: 'Hospitals' },
  covidcaremap_hospitals: { publisher: 'CovidCareMap', dataset: 'US healthcare system capacity by facility' },
  hrsa_sites: {
    publisher: 'Health Resources and Services Administration (HRSA), geocoded by OEPS',
    dataset: 'Health center service delivery sites (FQHC), ~2020',
  },
  chr_primary_care_physicians: {
    publisher:
      'University of Wisconsin Population Health Institute, County Health Rankings & Roadmaps, from the HRSA Area Health Resources File',
    dataset: 'Measure v004, primary care physicians per county (2026 release, physicians of 2022)',
  },
  chr_mental_health_providers: {
    publisher: 'University of Wisconsin Population Health Institute, County Health Rankings & Roadmaps, from CMS NPPES',
    dataset: 'Measure v062, mental health providers per county (2025 release, NPPES of June 2024)',
  },
  chr_primary_care_np_pa: {
    publisher: 'University of Wisconsin Population Health Institute, County Health Rankings & Roadmaps, from CMS NPPES',
    dataset: 'Measure v131, primary care nurse practitioners and physician assistants per county (2025 release, NPPES of June 2024)',
  },
  chr_dentists: {
    publisher:
      'University of Wisconsin Population Health Institute, County Health Rankings & Roadmaps, from the HRSA Area Health Resources File',
    dataset: 'Measure v088, dentists per county (2026 release, dentists of 2023)',
  },
  dartmouth_tract_physicians: {
    publisher: 'The Dartmouth Atlas of Health Care, via the Opioid Environment Policy Scan (OEPS)',
    dataset: 'Primary Care Service Area project: primary care and specialist physicians per census tract, 2010',
  },
  obgyn_roster: {
    publisher: 'Centers for Medicare & Medicaid Services (CMS), filtered by mufflyt/isochrones',
    dataset: 'Doctors and Clinicians national downloadable file, 2023: OB/GYNs and gynecologic oncologists',
  },
};
