/**
 * Census files: the 2020 ZCTA Gazetteer and a Census Data API export of the ACS 5-year Data Profile.
 * Layout details copied from the real files: the Gazetteer's trailing blanks and trimmed decimals, the
 * API's array-of-string-arrays JSON with one row per line and its negative suppression sentinels.
 */
import { join } from 'node:path';
import type { Geography } from './geography.ts';
import type { Demographics } from './census-model.ts';
import { ISLAND_AREAS } from './states.ts';
import { Rng } from './prng.ts';
import { OutputFile } from './writer.ts';

/** Gazetteer header fields (tab-separated). */
export const GAZETTEER_COLUMNS = ['GEOID', 'ALAND', 'AWATER', 'ALAND_SQMI', 'AWATER_SQMI', 'INTPTLAT', 'INTPTLONG'] as const;

/** Header row of the ACS Data Profile API export, in the order the API returns it. */
export const ACS_COLUMNS = [
  'NAME',
  'DP05_0001E',
  'DP05_0018E',
  'DP05_0024PE',
  'DP03_0062E',
  'DP03_0128PE',
  'DP03_0099PE',
  'DP03_0097PE',
  'DP03_0098PE',
  'DP02_0072PE',
  'DP04_0058PE',
  'DP03_0021PE',
  'DP04_0001E',
  'DP04_0046PE',
  'DP04_0047PE',
  'DP04_0089E',
  'DP05_0037PE',
  'DP05_0038PE',
  'DP05_0044PE',
  'DP05_0071PE',
  'zip code tabulation area',
] as const;

/** Census API annotation: estimate could not be computed (too few sample observations). */
export const CANNOT_COMPUTE = '-666666666';
/** Census API annotation: not applicable / not available "(X)". */
export const NOT_APPLICABLE = '-888888888';
/** API codes for top-coded medians ("250,000+" income, "2,000,000+" home value) and the bottom code. */
const INCOME_TOP = 250001;
const HOME_VALUE_TOP = 2000001;
const HOME_VALUE_BOTTOM = 9999;

const SQ_METRES_PER_SQ_MILE = 2589988.110336;

/**
 * Formats a number the way the Gazetteer prints it: fixed decimals with trailing zeros dropped but the
 * point kept ("1.71", "0."), and longitudes east of Greenwich with a leading "+".
 */
export function gazetteerNumber(value: number, decimals: number, plusSign = false): string {
  let text = value.toFixed(decimals).replace(/0+$/, '');
  if (text === '-0.') text = '0.';
  return plusSign && value > 0 ? `+${text}` : text;
}

/** Writes census/2020_Gaz_zcta_national.txt; returns the number of rows. */
export async function writeGazetteer(outDir: string, geo: Geography, demo: readonly Demographics[]): Promise<number> {
  const out = OutputFile.open(join(outDir, 'census/2020_Gaz_zcta_national.txt'));
  // The real file pads every line with blanks (header to 190 characters, rows to 200): keep that quirk.
  out.header(GAZETTEER_COLUMNS.join('\t').padEnd(190, ' '));
  geo.zctas.forEach((z, i) => {
    const d = demo[i] as Demographics;
    const fields = [
      z.code,
      String(Math.round(d.landSqMi * SQ_METRES_PER_SQ_MILE)),
      String(Math.round(d.waterSqMi * SQ_METRES_PER_SQ_MILE)),
      gazetteerNumber(d.landSqMi, 3),
      gazetteerNumber(d.waterSqMi, 3),
      gazetteerNumber(z.lat, 6),
      gazetteerNumber(z.lon, 6, true),
    ];
    out.line(fields.join('\t').padEnd(200, ' '));
  });
  await out.close();
  return out.rows;
}

const pct = (x: number) => x.toFixed(1);

/** Probability that a median cannot be computed, by population (small samples). */
function suppressionChance(population: number): number {
  if (population === 0) return 1;
  if (population < 100) return 0.55;
  if (population < 300) return 0.3;
  if (population < 1000) return 0.08;
  if (population < 3000) return 0.015;
  return 0.002;
}

/** The API row (all strings) of one ZCTA, with suppression sentinels applied. */
function acsRow(code: string, d: Demographics, rng: Rng): string[] {
  const p = suppressionChance(d.population);
  // A median of the ACS table (income, rent, age): top- and bottom-coded as the Census Bureau does, sometimes suppressed.
  const coded = (value: number, top: number, bottom = 0) =>
    rng.chance(p) ? CANNOT_COMPUTE : String(value >= top ? top : value <= bottom ? bottom : value);
  // Percentages have denominators, so they exist whenever people do; a few are "(X)" for small areas.
  const share = (value: number) =>
    d.population === 0 ? CANNOT_COMPUTE : d.population < 500 && rng.chance(0.004) ? NOT_APPLICABLE : pct(value);
  const noHouseholds = d.population === 0;
  return [
    `ZCTA5 ${code}`,
    String(d.population),
    d.population === 0 || (d.population < 30 && rng.chance(0.5)) ? CANNOT_COMPUTE : d.medianAge.toFixed(1),
    share(d.pct65),
    coded(d.medianIncome, INCOME_TOP, 2499),
    share(d.poverty),
    share(d.uninsured),
    share(d.privateIns),
    share(d.publicIns),
    share(d.disability),
    noHouseholds ? CANNOT_COMPUTE : share(d.noVehicle),
    share(d.transit),
    String(d.housingUnits),
    noHouseholds ? CANNOT_COMPUTE : d.ownerPct.toFixed(1),
    noHouseholds ? CANNOT_COMPUTE : (100 - d.ownerPct).toFixed(1),
    coded(d.homeValue, HOME_VALUE_TOP, HOME_VALUE_BOTTOM),
    share(d.white),
    share(d.black),
    share(d.asian),
    share(d.hispanic),
    code,
  ];
}

/**
 * Writes census/acs5_2022_profile_zcta.json as the Census Data API returns it: `[[header],\n[row],\n...]]`.
 * Island-area ZCTAs are absent (the ACS does not cover them), which leaves the ~17 missing ZCTAs the real
 * export has. Returns the number of data rows.
 */
export async function writeAcsProfile(outDir: string, geo: Geography, demo: readonly Demographics[], seed: number): Promise<number> {
  const rng = new Rng(seed, 'acs');
  const out = OutputFile.open(join(outDir, 'census/acs5_2022_profile_zcta.json'));
  const rows: string[] = [];
  geo.zctas.forEach((z, i) => {
    if (!ISLAND_AREAS.has(z.state)) rows.push(JSON.stringify(acsRow(z.code, demo[i] as Demographics, rng)));
  });
  out.append(`[${JSON.stringify(ACS_COLUMNS)}`);
  for (const row of rows) out.append(`,\n${row}`);
  out.append(']');
  await out.close();
  return rows.length;
}
