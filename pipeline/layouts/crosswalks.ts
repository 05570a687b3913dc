import { RowReject } from '../base/errors.ts';
import { zcta5 } from './census.ts';
import type { Layout } from './types.ts';
import { displayName, isMissing, optionalNumber, stateCode, zip5 } from './values.ts';

/** A postal ZIP code with its post-office name and the ZCTA that contains it. */
export interface ZipZctaRow {
  zip: string;
  city: string;
  state: string;
  zcta: string;
  zipType: string;
}

export const zipZcta: Layout<ZipZctaRow> = {
  name: 'zip_zcta',
  description: 'UDS Mapper ZIP to ZCTA crosswalk (ZIP_CODE, PO_NAME, STATE, ZIP_TYPE, ZCTA)',
  fields: {
    zip: { aliases: ['ZIP_CODE', 'ZIP'], required: true },
    city: { aliases: ['PO_NAME'], required: true },
    state: { aliases: ['STATE'], required: true },
    zcta: { aliases: ['ZCTA', 'ZCTA5'], required: true },
    zip_type: { aliases: ['ZIP_TYPE'] },
  },
  parse(read) {
    const zcta = read('zcta');
    if (isMissing(zcta)) throw new RowReject('ZCTA is missing: this ZIP has no containing ZCTA', 'excluded');
    return {
      zip: zip5(read('zip'), 'ZIP_CODE'),
      city: displayName(read('city')),
      state: stateCode(read('state'), 'STATE'),
      zcta: zcta5(zcta),
      zipType: read('zip_type'),
    };
  },
};

/** City and state of a ZIP from an unofficial ZIP table (uszipcode); used only for display names. */
export interface ZipCityRow {
  zip: string;
  city: string;
  state: string;
}

export const zipCity: Layout<ZipCityRow> = {
  name: 'zip_city',
  description: 'ZIP city names (zipcode, major_city, state), e.g. the uszipcode simple table',
  fields: {
    zip: { aliases: ['zipcode', 'zip', 'ZIP'], required: true },
    city: { aliases: ['major_city', 'city', 'po_name'], required: true },
    state: { aliases: ['state', 'STATE'], required: true },
  },
  parse(read) {
    const city = read('city');
    if (isMissing(city)) throw new RowReject('city name is missing');
    return { zip: zip5(read('zip'), 'zipcode'), city: displayName(city), state: stateCode(read('state'), 'state') };
  },
};

/** One (ZCTA, county) pair; a ZCTA spanning counties has several rows. */
export interface ZctaCountyRow {
  zcta: string;
  countyFips: string;
  state: string;
  weight: number | null;
}

export const zctaCounty: Layout<ZctaCountyRow> = {
  name: 'zcta_county',
  description: 'ZCTA to county crosswalk (zcta, county_fips, state_usps), optional weight column',
  fields: {
    zcta: { aliases: ['zcta', 'ZCTA5', 'GEOID_ZCTA5_20'], required: true },
    county_fips: { aliases: ['county_fips', 'COUNTY', 'GEOID_COUNTY_20'], required: true },
    state: { aliases: ['state_usps', 'STATE', 'state'], required: true },
    weight: { aliases: ['weight', 'TOT_RATIO', 'AREALAND_PART'] },
  },
  parse(read) {
    return {
      zcta: zcta5(read('zcta')),
      countyFips: countyFips(read('county_fips')),
      state: stateCode(read('state'), 'state_usps'),
      weight: optionalNumber(read('weight'), 'weight'),
    };
  },
};

/**
 * One (USPS ZIP, county) pair of the HUD USPS ZIP-county crosswalk, with the shares of the ZIP's residential
 * and of all its addresses that lie in the county. The residential share places a ZIP where its people live.
 */
export interface ZipCountyRow {
  zip: string;
  countyFips: string;
  residentialRatio: number;
  totalRatio: number;
}

export const zipCounty: Layout<ZipCountyRow> = {
  name: 'zip_county',
  description: 'HUD USPS ZIP to county crosswalk (ZIP, COUNTY, RES_RATIO, TOT_RATIO)',
  fields: {
    zip: { aliases: ['ZIP', 'zip'], required: true },
    county_fips: { aliases: ['COUNTY', 'county', 'GEOID'], required: true },
    residential_ratio: { aliases: ['RES_RATIO', 'res_ratio'], required: true },
    total_ratio: { aliases: ['TOT_RATIO', 'tot_ratio'], required: true },
  },
  parse(read) {
    const ratio = (field: string, header: string) => {
      const value = optionalNumber(read(field), header) ?? 0;
      if (value < 0 || value > 1.0001) throw new RowReject(`${header} must be a share from 0 to 1, got ${value}`);
      return value;
    };
    return {
      zip: zip5(read('zip'), 'ZIP'),
      countyFips: countyFips(read('county_fips')),
      residentialRatio: ratio('residential_ratio', 'RES_RATIO'),
      totalRatio: ratio('total_ratio', 'TOT_RATIO'),
    };
  },
};

/** A county in a metropolitan or micropolitan statistical area. */
export interface CountyCbsaRow {
  countyFips: string;
  cbsaCode: string;
  cbsaTitle: string;
  cbsaType: string;
}

export const countyCbsa: Layout<CountyCbsaRow> = {
  name: 'county_cbsa',
  description: 'OMB county to CBSA delineation (county_fips, cbsa_code, cbsa_title, cbsa_type)',
  fields: {
    county_fips: { aliases: ['county_fips', 'FIPS'], required: true },
    cbsa_code: { aliases: ['cbsa_code', 'CBSA Code'], required: true },
    cbsa_title: { aliases: ['cbsa_title', 'CBSA Title'], required: true },
    cbsa_type: { aliases: ['cbsa_type', 'Metropolitan/Micropolitan Statistical Area'] },
  },
  parse(read) {
    const code = read('cbsa_code');
    if (!/^\d{5}$/.test(code)) throw new RowReject(`cbsa_code is not 5 digits: ${JSON.stringify(code)}`);
    return {
      countyFips: countyFips(read('county_fips')),
      cbsaCode: code,
      cbsaTitle: read('cbsa_title'),
      cbsaType: /micro/i.test(read('cbsa_type')) ? 'Micro' : 'Metro',
    };
  },
};

/** NCHS urban-rural classification of a county: 1 large central metro ... 6 noncore. */
export interface CountyUrbanRuralRow {
  countyFips: string;
  code: number;
}

export const countyUrbanRural: Layout<CountyUrbanRuralRow> = {
  name: 'county_urban_rural',
  description: 'NCHS urban-rural codes per county (STFIPS, CTYFIPS, CODE2023)',
  fields: {
    state_fips: { aliases: ['STFIPS'], required: true },
    county_fips: { aliases: ['CTYFIPS'], required: true },
    code: { aliases: ['CODE2023', 'CODE2013'], required: true },
    county_name: { aliases: ['CTYNAME'] },
  },
  parse(read) {
    const code = optionalNumber(read('code'), 'CODE2023');
    // The 2023 file keeps rows for county-equivalents replaced before 2023 (Connecticut's old counties, a few
    // Alaska census areas) with older codes only: they are not counties of the 2023 scheme.
    if (code === null && read('county_name') !== '')
      throw new RowReject(
        `${read('county_name')} has no code of this vintage (a county-equivalent replaced before it)`,
        'excluded',
        'county_replaced',
      );
    if (code === null || !Number.isInteger(code) || code < 1 || code > 6)
      throw new RowReject(`CODE2023 must be 1-6, got ${JSON.stringify(read('code'))}`);
    const state = read('state_fips').padStart(2, '0');
    const county = read('county_fips').padStart(3, '0');
    return { countyFips: countyFips(state + county), code };
  },
};

/** USDA rural-urban commuting area code of a ZIP/ZCTA (1 metro core ... 10 rural). */
export interface ZipRucaRow {
  zcta: string;
  ruca: number;
}

export const zipRuca: Layout<ZipRucaRow> = {
  name: 'zip_ruca',
  description: 'USDA RUCA codes per ZIP or ZCTA (ZCTA, RUCA1)',
  fields: {
    zcta: { aliases: ['ZCTA', 'ZIP_CODE', 'ZIP'], required: true },
    ruca: { aliases: ['RUCA1', 'RUCA'], required: true },
  },
  parse(read) {
    const ruca = optionalNumber(read('ruca'), 'RUCA1');
    if (ruca === null || ruca < 1 || ruca > 10.9) throw new RowReject(`RUCA1 must be 1-10, got ${JSON.stringify(read('ruca'))}`);
    return { zcta: zcta5(read('zcta')), ruca: Math.floor(ruca) };
  },
};

function countyFips(value: string): string {
  const digits = value
    .trim()
    .replace(/^0500000US|^050US/, '')
    .replace(/\.0+$/, '');
  if (!/^\d{4,5}$/.test(digits)) throw new RowReject(`county FIPS is not 5 digits: ${JSON.stringify(value)}`);
  return digits.padStart(5, '0');
}
