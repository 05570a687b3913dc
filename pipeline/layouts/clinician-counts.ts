import { BuildError, RowReject } from '../base/errors.ts';
import { COUNT_KIND_NAMES, COUNT_KINDS } from '../config/clinician-counts.ts';
import type { Layout } from './types.ts';
import { optionalNumber, zip5 } from './values.ts';

/** The areas a count row describes: the nation and a state (a file's own summary rows) or a county, tract or ZIP. */
export type CountArea = 'nation' | 'state' | 'county' | 'tract' | 'zip';

/** One row of a clinician count file: an area and its clinicians per count kind (null where the file has none). */
export interface ClinicianCountRow {
  area: CountArea;
  /** `00` (nation), a state's 2-digit FIPS, a 5-digit county FIPS, an 11-digit tract GEOID or a 5-digit ZIP. */
  code: string;
  counts: Record<string, number | null>;
  /** The residents the file counted them against, where it says (County Health Rankings' denominator). */
  population: number | null;
}

/**
 * Clinicians counted per area: a county file (County Health Rankings measure files, the Area Health Resources
 * File, a state licensing board's counts), a census tract file (the Dartmouth Atlas) or a ZIP file. The
 * manifest's `columns` map count kinds (config/clinician-counts.ts: `primary_care_physicians`, `dentists`,
 * `specialist_physicians`, a category name ...) to this file's columns, and `options.year` says the year the
 * counts describe. The area is a tract where a tract column is mapped or found, else a ZIP, else a county:
 * `county` (5-digit FIPS) or `state` with `county_code`. A file's summary rows (county code 000: the nation
 * `00000` and each state `SS000`) land as such, for the build to check its totals against.
 */
export const clinicianCounts: Layout<ClinicianCountRow> = {
  name: 'clinician_counts',
  description:
    'Clinicians counted per county, census tract or ZIP (County Health Rankings, AHRF, Dartmouth Atlas); columns map count kinds',
  fields: {
    county: { aliases: ['fipscode', 'county_fips', 'FIPS', 'county'] },
    state: { aliases: ['statecode', 'state_fips', 'STATEFP', 'state'] },
    county_code: { aliases: ['countycode', 'COUNTYFP'] },
    tract: { aliases: ['tract', 'TRACTCE', 'tract_geoid'] },
    zip: { aliases: ['zip', 'zip_code', 'ZCTA'] },
    population: { aliases: [] },
  },
  dynamicFields: true,
  parse(read, _header, options) {
    const counts: Record<string, number | null> = {};
    let any = false;
    for (const kind of options.kinds as string[]) {
      const value = optionalNumber(read(kind), kind);
      if (value !== null && value < 0) throw new RowReject(`${kind} is negative: ${value}`);
      counts[kind] = value;
      any ||= value !== null;
    }
    const { area, code } = areaOf(read, options.area as CountArea);
    if (!any)
      throw new RowReject(
        `no count for ${area} ${code}: every count column is blank or a missing-value word (suppressed or not published)`,
        'excluded',
      );
    const population = optionalNumber(read('population'), 'population');
    return { area, code, counts, population };
  },
};

/** The area of a row: a tract or ZIP, or a county (or the file's nation and state rows, county code 000). */
function areaOf(read: (field: string) => string, level: CountArea): { area: CountArea; code: string } {
  if (level === 'zip') return { area: 'zip', code: zip5(read('zip'), 'zip') };
  const county = countyFips(read);
  if (level === 'tract') {
    const tract = read('tract').replace(/\.0+$/, '');
    if (/^\d{11}$/.test(tract)) return { area: 'tract', code: tract };
    if (!/^\d{1,6}$/.test(tract)) throw new RowReject(`tract is not a 6-digit tract code or an 11-digit GEOID: ${JSON.stringify(tract)}`);
    return { area: 'tract', code: county + tract.padStart(6, '0') };
  }
  if (county === '00000') return { area: 'nation', code: '00' };
  if (county.endsWith('000')) return { area: 'state', code: county.slice(0, 2) };
  return { area: 'county', code: county };
}

/** The 5-digit county FIPS of a row: its county column (leading zeros restored), else its state and county code. */
function countyFips(read: (field: string) => string): string {
  const whole = read('county').replace(/\.0+$/, '');
  if (whole !== '') {
    if (!/^\d{1,5}$/.test(whole)) throw new RowReject(`county FIPS is not a 5-digit code: ${JSON.stringify(whole)}`);
    return whole.padStart(5, '0');
  }
  const state = read('state').replace(/\.0+$/, '');
  const county = read('county_code').replace(/\.0+$/, '');
  if (!/^\d{1,2}$/.test(state) || !/^\d{1,3}$/.test(county))
    throw new RowReject(
      `no county: the county FIPS is blank and state ${JSON.stringify(state)} with county code ${JSON.stringify(county)} is no code`,
    );
  return state.padStart(2, '0') + county.padStart(3, '0');
}

/**
 * Checks a count source's manifest entry and gives its parse options: the count kinds its columns map, the
 * area its rows describe (`options.area`: "county", the default, "tract" or "zip"), the year. Every problem
 * names the manifest key to fix.
 */
export function countSourceOptions(key: string, columns: Record<string, string>, options: Record<string, unknown>): CountSourceOptions {
  const where = `manifest key sources.${key}`;
  const areaFields = new Set(Object.keys(clinicianCounts.fields));
  const kinds = Object.keys(columns).filter((name) => !areaFields.has(name));
  const unknown = kinds.filter((kind) => !(kind in COUNT_KINDS));
  if (unknown.length)
    throw new BuildError(
      `${where}.columns: unknown count kind ${unknown.map((k) => `"${k}"`).join(', ')}; known: ${COUNT_KIND_NAMES.join(', ')}`,
    );
  if (kinds.length === 0)
    throw new BuildError(
      `${where}.columns: map at least one count kind to the column holding it, e.g. { "primary_care_physicians": "v004_numerator" }; known kinds: ${COUNT_KIND_NAMES.join(', ')}`,
    );
  const { year, area = 'county' } = options;
  if (typeof year !== 'number' || !Number.isInteger(year) || year < 1900 || year > 2100)
    throw new BuildError(
      `${where}.options.year: the year the counts describe (e.g. 2022), which decides which count wins where several are given; got ${JSON.stringify(year)}`,
    );
  if (area !== 'county' && area !== 'tract' && area !== 'zip')
    throw new BuildError(
      `${where}.options.area: "county" (the default), "tract" or "zip": what each row counts; got ${JSON.stringify(area)}`,
    );
  return { kinds, area, year };
}

/** A count source's parse options (countSourceOptions). */
export interface CountSourceOptions {
  kinds: string[];
  area: 'county' | 'tract' | 'zip';
  year: number;
}
