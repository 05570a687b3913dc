import { RowReject } from '../base/errors.ts';
import type { Layout } from './types.ts';
import { displayName, identifier, isMissing, optionalBoolean, optionalNumber, stateCode, zip5 } from './values.ts';

/** A facility as one source describes it; sources are merged into one record per facility later. */
export interface FacilityRow {
  source: 'cms' | 'hifld' | 'covidcaremap' | 'hrsa';
  /** CMS certification number (CCN), when the source carries it. */
  ccn: string | null;
  /** HIFLD record id (HIFLD's ID; CovidCareMap's HIFLD.ID), zero-padded to 10 digits, linking the two. */
  hifldId: string | null;
  name: string;
  type: string;
  address: string;
  city: string;
  state: string;
  zip: string | null;
  phone: string;
  website: string;
  latitude: number | null;
  longitude: number | null;
  /** Beds set up and staffed (HCRIS cost reports, via CovidCareMap). */
  staffedBeds: number | null;
  /** Licensed (total) beds: HIFLD BEDS, CovidCareMap Licensed.All.Beds. More than are staffed. */
  licensedBeds: number | null;
  emergency: boolean | null;
  rating: number | null;
  /** Highest adult or paediatric trauma centre level (1-5, 1 highest), when the source lists one. */
  traumaLevel: number | null;
  /** Operating status where the source states one (HIFLD STATUS); the roster leaves closed ones out. */
  status: 'open' | 'closed' | null;
}

/** HIFLD TRAUMA text ("LEVEL I, LEVEL II PEDIATRIC", "NOT AVAILABLE") to the highest level listed, 1-5. */
export function traumaLevel(value: string): number | null {
  const levels = [...value.toUpperCase().matchAll(/LEVEL (V|IV|III|II|I)\b(?![A-Z ]*REHAB)/g)].map(
    (m) => ['I', 'II', 'III', 'IV', 'V'].indexOf(m[1]) + 1,
  );
  return levels.length ? Math.min(...levels) : null;
}

function hifldId(value: string): string | null {
  const id = identifier(value);
  return isMissing(id) || !/^\d{1,10}$/.test(id) ? null : id.padStart(10, '0');
}

function coordinates(read: (field: string) => string): { latitude: number | null; longitude: number | null } {
  const latitude = optionalNumber(read('latitude'), 'latitude');
  const longitude = optionalNumber(read('longitude'), 'longitude');
  if (latitude === null || longitude === null) return { latitude: null, longitude: null };
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180 || (latitude === 0 && longitude === 0)) {
    throw new RowReject(`coordinates ${latitude},${longitude} are not a US location`);
  }
  return { latitude, longitude };
}

function optionalZip(value: string, field: string): string | null {
  return isMissing(value) ? null : zip5(value, field);
}

function requiredName(value: string): string {
  if (value.trim() === '') throw new RowReject('facility name is missing');
  return displayName(value);
}

/** A bed count, treating the -999 "unknown" code of HIFLD and non-positive counts as no value. */
function beds(value: string, field: string): number | null {
  const count = optionalNumber(value, field);
  return count === null || count <= 0 ? null : Math.round(count);
}

/**
 * One name per hospital type, whichever file's vocabulary a row comes in: CMS writes "Acute Care Hospitals",
 * "Childrens", "Long-term"; HIFLD and CovidCareMap "GENERAL ACUTE CARE", "CHILDREN", "LONG TERM CARE". A
 * merged roster listing both "Critical Access" and "Critical Access Hospital" would split every count and
 * filter by type in two. Keys are lower case; a type not listed keeps its own words.
 */
const FACILITY_TYPE_NAMES: Record<string, string> = {
  'acute care hospitals': 'Acute Care Hospital',
  'general acute care': 'Acute Care Hospital',
  'critical access hospitals': 'Critical Access Hospital',
  'critical access': 'Critical Access Hospital',
  childrens: "Children's Hospital",
  children: "Children's Hospital",
  psychiatric: 'Psychiatric Hospital',
  'long-term': 'Long-Term Care Hospital',
  'long term care': 'Long-Term Care Hospital',
  rehabilitation: 'Rehabilitation Hospital',
  military: 'Military Hospital',
  women: "Women's Hospital",
  special: 'Specialty Hospital',
  'chronic disease': 'Chronic Disease Hospital',
  'acute care - veterans administration': 'Acute Care - Veterans Administration',
  'acute care - department of defense': 'Acute Care - Department of Defense',
  'rural emergency hospital': 'Rural Emergency Hospital',
};

/** A source's hospital type under its one name (`FACILITY_TYPE_NAMES`), else in display case. */
export function facilityTypeName(type: string): string {
  return FACILITY_TYPE_NAMES[type.trim().toLowerCase()] ?? displayName(type);
}

export const cmsHospitals: Layout<FacilityRow> = {
  name: 'cms_hospitals',
  description: 'CMS Care Compare Hospital General Information (Facility ID, Hospital Type, Emergency Services, rating)',
  fields: {
    ccn: { aliases: ['Facility ID', 'Provider ID', 'CMS Certification Number (CCN)'], required: true },
    name: { aliases: ['Facility Name', 'Hospital Name'], required: true },
    address: { aliases: ['Address'] },
    city: { aliases: ['City/Town', 'City'], required: true },
    state: { aliases: ['State'], required: true },
    zip: { aliases: ['ZIP Code'], required: true },
    phone: { aliases: ['Telephone Number', 'Phone Number'] },
    type: { aliases: ['Hospital Type'], required: true },
    emergency: { aliases: ['Emergency Services'] },
    rating: { aliases: ['Hospital overall rating'] },
  },
  parse(read) {
    const ccn = identifier(read('ccn')).padStart(6, '0');
    if (!/^[0-9A-Z]{6}$/.test(ccn)) throw new RowReject(`Facility ID is not a CMS certification number: ${JSON.stringify(read('ccn'))}`);
    const rating = optionalNumber(read('rating'), 'Hospital overall rating');
    if (rating !== null && !(Number.isInteger(rating) && rating >= 1 && rating <= 5))
      throw new RowReject(`Hospital overall rating must be 1-5, got ${rating}`);
    const type = read('type');
    return {
      source: 'cms',
      ccn,
      name: requiredName(read('name')),
      type: facilityTypeName(type),
      address: displayName(read('address')),
      city: displayName(read('city')),
      state: stateCode(read('state'), 'State'),
      zip: zip5(read('zip'), 'ZIP Code'),
      phone: read('phone'),
      website: '',
      latitude: null,
      longitude: null,
      hifldId: null,
      staffedBeds: null,
      licensedBeds: null,
      emergency: optionalBoolean(read('emergency'), 'Emergency Services'),
      rating,
      traumaLevel: null,
      status: 'open',
    };
  },
};

export const hifldHospitals: Layout<FacilityRow> = {
  name: 'hifld_hospitals',
  description: 'DHS HIFLD Hospitals (NAME, TYPE, STATUS, LATITUDE, LONGITUDE, BEDS with -999 unknown)',
  fields: {
    id: { aliases: ['ID'] },
    name: { aliases: ['NAME'], required: true },
    address: { aliases: ['ADDRESS'] },
    city: { aliases: ['CITY'], required: true },
    state: { aliases: ['STATE'], required: true },
    zip: { aliases: ['ZIP'] },
    phone: { aliases: ['TELEPHONE'] },
    type: { aliases: ['TYPE'], required: true },
    status: { aliases: ['STATUS'] },
    latitude: { aliases: ['LATITUDE', 'Y'], required: true },
    longitude: { aliases: ['LONGITUDE', 'X'], required: true },
    beds: { aliases: ['BEDS'] },
    website: { aliases: ['WEBSITE'] },
    trauma: { aliases: ['TRAUMA'] },
  },
  parse(read) {
    const { latitude, longitude } = coordinates(read);
    if (latitude === null) throw new RowReject('LATITUDE/LONGITUDE missing');
    const website = read('website');
    return {
      source: 'hifld',
      ccn: null,
      hifldId: hifldId(read('id')),
      name: requiredName(read('name')),
      type: facilityTypeName(read('type')),
      address: displayName(read('address')),
      city: displayName(read('city')),
      state: stateCode(read('state'), 'STATE'),
      zip: optionalZip(read('zip'), 'ZIP'),
      phone: isMissing(read('phone')) || /NOT AVAILABLE/i.test(read('phone')) ? '' : read('phone'),
      website: /^https?:\/\//i.test(website) ? website : '',
      latitude,
      longitude,
      staffedBeds: null,
      licensedBeds: beds(read('beds'), 'BEDS'),
      emergency: null,
      rating: null,
      traumaLevel: traumaLevel(read('trauma')),
      status: read('status').toUpperCase() === 'CLOSED' ? 'closed' : read('status') ? 'open' : null,
    };
  },
};

export const covidcaremapHospitals: Layout<FacilityRow> = {
  name: 'covidcaremap_hospitals',
  description: 'CovidCareMap hospitals (Name, Hospital.Type, Latitude, Longitude, Staffed.All.Beds, HCRIS.ID = CCN)',
  fields: {
    name: { aliases: ['Name'], required: true },
    type: { aliases: ['Hospital.Type'] },
    address: { aliases: ['Address'] },
    city: { aliases: ['City'], required: true },
    state: { aliases: ['State'], required: true },
    zip: { aliases: ['Zipcode'] },
    latitude: { aliases: ['Latitude'], required: true },
    longitude: { aliases: ['Longitude'], required: true },
    staffed_beds: { aliases: ['Staffed.All.Beds'] },
    licensed_beds: { aliases: ['Licensed.All.Beds'] },
    ccn: { aliases: ['HCRIS.ID'] },
    hifld_id: { aliases: ['HIFLD.ID'] },
  },
  parse(read) {
    const { latitude, longitude } = coordinates(read);
    if (latitude === null) throw new RowReject('Latitude/Longitude missing');
    const ccn = identifier(read('ccn'));
    return {
      source: 'covidcaremap',
      ccn: isMissing(ccn) ? null : ccn.padStart(6, '0'),
      hifldId: hifldId(read('hifld_id')),
      name: requiredName(read('name')),
      type: facilityTypeName(read('type')),
      address: displayName(read('address')),
      city: displayName(read('city')),
      state: stateCode(read('state'), 'State'),
      zip: optionalZip(read('zip'), 'Zipcode'),
      phone: '',
      website: '',
      latitude,
      longitude,
      staffedBeds: beds(read('staffed_beds'), 'Staffed.All.Beds'),
      licensedBeds: beds(read('licensed_beds'), 'Licensed.All.Beds'),
      emergency: null,
      rating: null,
      traumaLevel: null,
      status: null,
    };
  },
};

export const hrsaSites: Layout<FacilityRow> = {
  name: 'hrsa_sites',
  description: 'HRSA health center service delivery sites (name, st_abbr, city, address, phone, lon, lat)',
  fields: {
    name: { aliases: ['name', 'Site Name'], required: true },
    state: { aliases: ['st_abbr', 'Site State Abbreviation'], required: true },
    city: { aliases: ['city', 'Site City'], required: true },
    address: { aliases: ['address', 'Site Address'] },
    zip: { aliases: ['zip', 'Site Postal Code'] },
    phone: { aliases: ['phone', 'Site Telephone Number'] },
    website: { aliases: ['Site Web Address'] },
    latitude: { aliases: ['lat', 'Geocoding Artifact Address Primary Y Coordinate'], required: true },
    longitude: { aliases: ['lon', 'Geocoding Artifact Address Primary X Coordinate'], required: true },
  },
  parse(read) {
    const { latitude, longitude } = coordinates(read);
    if (latitude === null) throw new RowReject('lat/lon missing');
    return {
      source: 'hrsa',
      ccn: null,
      hifldId: null,
      name: requiredName(read('name')),
      type: 'Health Center',
      address: displayName(read('address')),
      city: displayName(read('city')),
      state: stateCode(read('state'), 'st_abbr'),
      zip: optionalZip(read('zip'), 'zip'),
      phone: read('phone'),
      website: read('website'),
      latitude,
      longitude,
      staffedBeds: null,
      licensedBeds: null,
      emergency: false,
      rating: null,
      traumaLevel: null,
      status: 'open',
    };
  },
};
