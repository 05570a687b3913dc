import { zcta5 } from './census.ts';
import type { Layout } from './types.ts';
import { optionalNumber } from './values.ts';

/** CDC PLACES crude prevalence (percent of adults) per ZCTA, by measure id (DIABETES, COPD, ...). */
export interface PlacesRow {
  zcta: string;
  prevalence: Record<string, number | null>;
}

/** PLACES measures the scores use; a file may carry any subset (a score type whose measure is missing has no prevalence term, see METHODOLOGY). */
export const PLACES_MEASURES = [
  'ARTHRITIS',
  'BPHIGH',
  'CANCER',
  'CASTHMA',
  'CHD',
  'COPD',
  'DIABETES',
  'OBESITY',
  'CSMOKING',
  'DEPRESSION',
  'ACCESS2',
] as const;

export const placesZcta: Layout<PlacesRow> = {
  name: 'places_zcta',
  description: 'CDC PLACES ZCTA data, GIS-friendly wide layout (ZCTA5, <MEASURE>_CrudePrev)',
  fields: {
    zcta: { aliases: ['ZCTA5', 'LocationName', 'ZCTA'], required: true },
    ...Object.fromEntries(PLACES_MEASURES.map((m) => [m, { aliases: [`${m}_CrudePrev`] }])),
  },
  parse(read) {
    const prevalence: Record<string, number | null> = {};
    for (const measure of PLACES_MEASURES) prevalence[measure] = optionalNumber(read(measure), `${measure}_CrudePrev`);
    return { zcta: zcta5(read('zcta')), prevalence };
  },
};
