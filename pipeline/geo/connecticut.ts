/**
 * Connecticut replaced its eight counties with nine planning regions as county-equivalents in 2022 (Census
 * Bureau notice of June 2022, "Change to County-Equivalents in the State of Connecticut"). Crosswalks of 2020
 * and earlier (HUD 2020 Q4, the 2020 ZCTA-county file) name the old counties; 2023 tables (OMB CBSA
 * delineations, NCHS urban-rural codes) name the regions. Regions are unions of towns and do not nest in
 * the old counties, so an old county is joined to 2023 tables through the region holding most of its
 * residents. Where two regions share a county, both have the same NCHS code (Fairfield: Western and Greater
 * Bridgeport, both 3 in CBSA 14860; New Haven: South Central and Naugatuck Valley, both 3), so only the
 * metro area of a few towns (Waterbury's in New Haven County, Torrington's neighbours in Litchfield) is
 * approximate. A crosswalk that already names regions (HUD 2023 Q1 and later) is used as it is.
 */
export const CT_REGION_OF_OLD_COUNTY: Readonly<Record<string, string>> = {
  '09001': '09190', // Fairfield -> Western Connecticut (Greater Bridgeport holds the rest)
  '09003': '09110', // Hartford -> Capitol
  '09005': '09160', // Litchfield -> Northwest Hills
  '09007': '09130', // Middlesex -> Lower Connecticut River Valley
  '09009': '09170', // New Haven -> South Central Connecticut (Naugatuck Valley holds Waterbury)
  '09011': '09180', // New London -> Southeastern Connecticut
  '09013': '09110', // Tolland -> Capitol
  '09015': '09150', // Windham -> Northeastern Connecticut
};

/** The county-equivalent to join 2023 county tables on: a Connecticut old county's region, else itself. */
export function countyFor2023Tables(countyFips: string): string {
  return CT_REGION_OF_OLD_COUNTY[countyFips] ?? countyFips;
}
