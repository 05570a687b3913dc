/**
 * Counties renamed, split or merged since 2010, by their old codes and the codes that replaced them (Census
 * Bureau, "Substantial Changes to Counties and County Equivalent Entities"). Files of different years write
 * different codes: the Dartmouth Atlas (2010) and HUD's 2020 ZIP-county crosswalk the old ones, the 2020
 * ZCTA-county file, the tract centres of 2020 and County Health Rankings the new ones.
 */
export const COUNTY_SUCCESSORS: Readonly<Record<string, readonly string[]>> = {
  '02261': ['02063', '02066'], // Valdez-Cordova Census Area, split in 2019 into Chugach and Copper River
  '02270': ['02158'], // Wade Hampton Census Area, renamed Kusilvak in 2015
  '46113': ['46102'], // Shannon County SD, renamed Oglala Lakota in 2015
  '51515': ['51019'], // Bedford city VA, merged into Bedford County in 2013
};

/** The old codes a county code replaced (its predecessors), none for a county that did not change. */
export function predecessorsOf(county: string): string[] {
  return Object.entries(COUNTY_SUCCESSORS)
    .filter(([, successors]) => successors.includes(county))
    .map(([old]) => old);
}

/** A 2010 tract GEOID under the code its county has now, where the county was renamed (a split county's tracts keep theirs). */
export function currentTractCode(tract: string): string {
  const successors = COUNTY_SUCCESSORS[tract.slice(0, 5)];
  return successors?.length === 1 ? successors[0] + tract.slice(5) : tract;
}
