import { CENSUS_MEASURES } from '../../core/census-measures.ts';
import { BuildError } from '../base/errors.ts';
import type { Layout } from './types.ts';
import { optionalNumber, requiredNumber, requiredPoint, zip5 } from './values.ts';
import { round } from '../../core/numbers.ts';

/** A ZCTA of the Census Gazetteer: the set of ZIP codes we score, with their internal points. */
export interface GazetteerRow {
  zcta: string;
  landSqMi: number;
  latitude: number;
  longitude: number;
}

export const gazetteerZcta: Layout<GazetteerRow> = {
  name: 'gazetteer_zcta',
  description: 'Census ZCTA Gazetteer (GEOID, ALAND_SQMI, INTPTLAT, INTPTLONG), tab-separated',
  fields: {
    zcta: { aliases: ['GEOID', 'ZCTA5', 'ZCTA'], required: true },
    land_sqmi: { aliases: ['ALAND_SQMI'], required: true },
    latitude: { aliases: ['INTPTLAT'], required: true },
    longitude: { aliases: ['INTPTLONG'], required: true },
  },
  parse(read) {
    const zcta = zcta5(read('zcta'));
    const point = requiredPoint(read('latitude'), read('longitude'), {
      latitude: 'INTPTLAT',
      longitude: 'INTPTLONG',
      what: 'internal point',
    });
    return { zcta, landSqMi: requiredNumber(read('land_sqmi'), 'ALAND_SQMI'), ...point };
  },
};

/** A ZCTA code: 5 digits; ids like "860US01001" or "G01001" are reduced to their last 5 digits. */
export function zcta5(value: string): string {
  const text = value.trim();
  const prefixed = /^(?:860US|G|ZCTA5 ?)(\d{5})$/i.exec(text);
  return prefixed ? prefixed[1] : zip5(text, 'ZCTA');
}

/** ACS values for one ZCTA from one table: canonical measure name to value (null = suppressed). */
export interface AcsRow {
  zcta: string;
  values: Record<string, number | null>;
}

const MEASURE_SET = new Set<string>(CENSUS_MEASURES);

/**
 * Any ACS table keyed by ZCTA: Census API JSON/CSV exports and tidy derived tables alike. The manifest's
 * `columns` map canonical measures to this file's columns; `options.complement` lists measures stored as
 * 100 minus the column (e.g. uninsured from InsuredPopP).
 */
export const acsZcta: Layout<AcsRow> = {
  name: 'acs_zcta',
  description: 'ACS 5-year values per ZCTA: Census API export or tidy table; columns map measures to headers',
  fields: {
    zcta: { aliases: ['zip code tabulation area', 'GEOID', 'ZCTA', 'ZCTA5', 'zcta', 'GEO_ID', 'G_ZCTA'], required: true },
  },
  dynamicFields: true,
  parse(read, _header, options) {
    const zcta = zcta5(read('zcta'));
    const complement = new Set((options.complement as string[] | undefined) ?? []);
    const values: Record<string, number | null> = {};
    for (const measure of options.measures as string[]) {
      const value = optionalNumber(read(measure), measure);
      values[measure] = value === null ? null : complement.has(measure) ? round(100 - value, 4) : value;
    }
    return { zcta, values };
  },
};

/** Validates the measures a manifest maps for an ACS source; returns them. */
export function acsMeasures(columns: Record<string, string>, sourceKey: string): string[] {
  const measures = Object.keys(columns).filter((name) => name !== 'zcta');
  for (const measure of measures) {
    if (!MEASURE_SET.has(measure)) {
      throw new BuildError(`source "${sourceKey}": unknown census measure "${measure}"; known: ${CENSUS_MEASURES.join(', ')}`);
    }
  }
  return measures;
}
