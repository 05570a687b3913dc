import { RowReject } from '../errors.ts';
import type { Layout } from './types.ts';
import { displayName, identifier, isMissing, optionalBoolean, optionalNumber, stateCode, zip5 } from './values.ts';

/** A facility as one source describes it; sources are merged into one record per facility later. */
export interface FacilityRow {
  source: 'cms' | 'hifld' | 'covidcaremap' | 'hrsa';
  /** CMS certification number (CCN), when the source carries it. */
  ccn: string | null;
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
  staffedBeds: number | null;
  emergency: boolean | null;
  rating: number | null;
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

const CMS_TYPE_NAMES: Record<string, string> = {
  'acute care hospitals': 'Acute Care Hospital',
  'critical access hospitals': 'Critical Access Hospital',
  childrens: "Children's Hospital",
  psychiatric: 'Psychiatric Hospital',
  'acute care - veterans administration': 'Acute Care - Veterans Administration',
  'acute care - department of defense': 'Acute Care - Department of Defense',
};

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
    if (rating !== null && !(Number.isInteger(rating) && rating >= 1 && rating <= 5)) throw new RowReject(`Hospital overall rating must be 1-5, got ${rating}`);
    const type = read('type');
    return {
      source: 'cms', ccn, name: requiredName(read('name')),
      type: CMS_TYPE_NAMES[type.toLowerCase()] ?? displayName(type),
      address: displayName(read('address')), city: displayName(read('city')), state: stateCode(read('state'), 'State'),
      zip: zip5(read('zip'), 'ZIP Code'), phone: read('phone'), website: '', latitude: null, longitude: null,
      staffedBeds: null, emergency: optionalBoolean(read('emergency'), 'Emergency Services'), rating,
    };
  },
};

export const hifldHospitals: Layout<FacilityRow> = {
  name: 'hifld_hospitals',
  description: 'DHS HIFLD Hospitals (NAME, TYPE, STATUS, LATITUDE, LONGITUDE, BEDS with -999 unknown)',
  fields: {
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
  },
  parse(read) {
    if (read('status').toUpperCase() === 'CLOSED') throw new RowReject('hospital STATUS is CLOSED', 'excluded');
    const { latitude, longitude } = coordinates(read);
    if (latitude === null) throw new RowReject('LATITUDE/LONGITUDE missing');
    const website = read('website');
    return {
      source: 'hifld', ccn: null, name: requiredName(read('name')), type: displayName(read('type')),
      address: displayName(read('address')), city: displayName(read('city')), state: stateCode(read('state'), 'STATE'),
      zip: optionalZip(read('zip'), 'ZIP'), phone: isMissing(read('phone')) || /NOT AVAILABLE/i.test(read('phone')) ? '' : read('phone'),
      website: /^https?:\/\//i.test(website) ? website : '', latitude, longitude,
      staffedBeds: beds(read('beds'), 'BEDS'), emergency: null, rating: null,
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
  },
  parse(read) {
    const { latitude, longitude } = coordinates(read);
    if (latitude === null) throw new RowReject('Latitude/Longitude missing');
    const ccn = identifier(read('ccn'));
    return {
      source: 'covidcaremap', ccn: isMissing(ccn) ? null : ccn.padStart(6, '0'), name: requiredName(read('name')),
      type: displayName(read('type')), address: displayName(read('address')), city: displayName(read('city')),
      state: stateCode(read('state'), 'State'), zip: optionalZip(read('zip'), 'Zipcode'), phone: '', website: '',
      latitude, longitude, staffedBeds: beds(read('staffed_beds'), 'Staffed.All.Beds') ?? beds(read('licensed_beds'), 'Licensed.All.Beds'),
      emergency: null, rating: null,
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
      source: 'hrsa', ccn: null, name: requiredName(read('name')), type: 'Health Center',
      address: displayName(read('address')), city: displayName(read('city')), state: stateCode(read('state'), 'st_abbr'),
      zip: optionalZip(read('zip'), 'zip'), phone: read('phone'), website: read('website'), latitude, longitude,
      staffedBeds: null, emergency: false, rating: null,
    };
  },
};
