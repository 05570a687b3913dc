import { described, nullable, record, type Infer } from '../http/json-schema.ts';
import { boolean, stateCode, string } from './fields.ts';

const facilityFields = {
  id: { type: 'integer', minimum: 1 },
  facility_name: string,
  facility_type: { type: 'string', description: 'CMS hospital type when known, else the HIFLD type; Health Center for HRSA sites.' },
  city_name: string,
  state_name: string,
  state_code: stateCode,
  latitude: nullable({ type: 'number' }),
  longitude: nullable({ type: 'number' }),
  facility_rating: described(nullable({ type: 'integer', minimum: 1, maximum: 5 }), 'CMS overall star rating; null when not rated.'),
  emergency_services: boolean,
  telehealth: { type: 'boolean', description: 'Always false: no facility source carries it.' },
} as const;

/** A facility summary (interface specification 2.8). */
export const FacilitySummary = record(facilityFields, 'A facility summary (2.8).');
export type FacilitySummary = Infer<typeof FacilitySummary>;

/** A facility detail (interface specification 2.9). */
export const FacilityDetail = record(
  {
    ...facilityFields,
    address: string,
    phone_number: string,
    website: { type: 'string', description: 'URL; empty when no source has one.' },
    staffed_beds: nullable({ type: 'integer', minimum: 0 }),
    provider_count: {
      type: 'integer',
      minimum: 0,
      description: 'Distinct clinicians that Doctors and Clinicians affiliates with the facility (same state).',
    },
  },
  'A facility detail (2.9).',
);
export type FacilityDetail = Infer<typeof FacilityDetail>;

/** A hospital ranking entry (interface specification 2.12). */
export const HospitalRanking = record(
  {
    id: { type: 'integer', minimum: 1 },
    rank: { type: 'integer', minimum: 1 },
    facility_name: string,
    facility_type: string,
    city_name: string,
    state_name: string,
    state_code: stateCode,
    facility_rating: { type: 'integer', minimum: 1, maximum: 5 },
    emergency_services: boolean,
    telehealth: boolean,
  },
  'A hospital ranking entry (2.12).',
);
export type HospitalRanking = Infer<typeof HospitalRanking>;
