import { RowReject } from '../base/errors.ts';
import type { Layout } from './types.ts';
import { requiredNumber, requiredPoint, zip5 } from './values.ts';

/** Where a postal ZIP's residents live: the mean point of its residential addresses. */
export interface ResidentsPointRow {
  zip: string;
  latitude: number;
  longitude: number;
}

/**
 * HUD's ZIP Code Population Weighted Centroids: one point per USPS ZIP, the mean of the locations of its
 * ZIP+4 codes weighted by their residential address counts (USPS vacancy data). Keyed by postal ZIP, not by
 * ZCTA: the geography stage matches it to the same-numbered ZCTA and checks that it lies near it.
 * The file has two pairs of coordinates (X/Y and LATITUDE/LONGITUDE, equal); LATITUDE/LONGITUDE are read.
 */
export const zipResidentsPoint: Layout<ResidentsPointRow> = {
  name: 'zip_residents_point',
  description: 'Population-weighted point per USPS ZIP (HUD ZIP Code Population Weighted Centroids: STD_ZIP5, LATITUDE, LONGITUDE)',
  fields: {
    zip: { aliases: ['STD_ZIP5', 'ZIP', 'ZIP5', 'zip'], required: true },
    latitude: { aliases: ['LATITUDE', 'LAT', 'latitude'], required: true },
    longitude: { aliases: ['LONGITUDE', 'LGT', 'LON', 'longitude'], required: true },
  },
  parse(read) {
    const point = requiredPoint(read('latitude'), read('longitude'), { latitude: 'LATITUDE', longitude: 'LONGITUDE' });
    return { zip: zip5(read('zip'), 'STD_ZIP5'), ...point };
  },
};

/** A Census tract's centre of population: where its residents are on average, and how many they are. */
export interface TractCentreRow {
  tract: string;
  population: number;
  latitude: number;
  longitude: number;
}

/**
 * Census 2020 centers of population by tract (CenPop2020_Mean_TR): the mean point of the residents of each
 * tract, from the census blocks' counts. Independent of USPS addresses, so the validation report measures how
 * near each ZIP's residents' point lies to where the census counted people. Coordinates carry a sign and
 * leading zeros (+032.476823, -086.486599), which read as plain numbers.
 */
export const tractPopulationCentre: Layout<TractCentreRow> = {
  name: 'tract_population_centre',
  description: 'Census centers of population by tract (STATEFP, COUNTYFP, TRACTCE, POPULATION, LATITUDE, LONGITUDE)',
  fields: {
    state: { aliases: ['STATEFP'], required: true },
    county: { aliases: ['COUNTYFP'], required: true },
    tract: { aliases: ['TRACTCE'], required: true },
    population: { aliases: ['POPULATION'], required: true },
    latitude: { aliases: ['LATITUDE'], required: true },
    longitude: { aliases: ['LONGITUDE'], required: true },
  },
  parse(read) {
    const tract = `${read('state').padStart(2, '0')}${read('county').padStart(3, '0')}${read('tract').padStart(6, '0')}`;
    if (!/^\d{11}$/.test(tract)) throw new RowReject(`tract code ${JSON.stringify(tract)} is not 11 digits (STATEFP, COUNTYFP, TRACTCE)`);
    const population = requiredNumber(read('population'), 'POPULATION');
    if (!Number.isInteger(population) || population < 0) throw new RowReject(`POPULATION must be a count, got ${population}`);
    return { tract, population, ...requiredPoint(read('latitude'), read('longitude'), { latitude: 'LATITUDE', longitude: 'LONGITUDE' }) };
  },
};
