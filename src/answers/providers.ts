import { arrayOf, described, nullable, record, withOptional, type Infer } from '../http/json-schema.ts';
import { boolean, stateCode, string, zipCode } from './fields.ts';

const providerFields = {
  npi: { type: 'string', pattern: '^[12][0-9]{9}$' },
  first_name: string,
  last_name: string,
  credential: { type: 'string', description: 'As the provider wrote it in NPPES (free text); empty when none.' },
  gender: { type: 'string', enum: ['M', 'F', ''], description: 'Empty when the source has none.' },
  primary_specialty: {
    type: 'string',
    description:
      "The NUCC code set's display name of the primary taxonomy (Family Nurse Practitioner, Family Medicine Physician); the CMS specialty for clinicians known only from Doctors and Clinicians; empty when unknown.",
  },
  telehealth: boolean,
  city: described(string, 'The practice city, as NPPES has it.'),
  state: described(stateCode, 'The practice state.'),
  zip_code: described(zipCode, 'The practice ZIP code.'),
} as const;

/** A provider summary (interface specification 2.6), with the practice place. */
export const ProviderSummary = withOptional(record(providerFields, 'A provider summary (2.6), with the practice city, state and ZIP.'), {
  distance_miles: described(
    { type: 'number', minimum: 0 },
    "In a list asked with near=: great-circle miles from that ZIP code's point to the point of the ZCTA of the practice ZIP (2 decimals); absent otherwise.",
  ),
});
export type ProviderSummary = Infer<typeof ProviderSummary>;

/** A provider profile (interface specification 2.7). */
export const ProviderProfile = record(
  {
    ...providerFields,
    medical_school: described(nullable(string), 'Doctors and Clinicians; null when absent.'),
    residency: { type: 'null', description: 'Always null: no public source carries residency.' },
    graduation_year: described(nullable({ type: 'integer' }), 'Doctors and Clinicians; null when absent.'),
    facility_names: described(arrayOf(string), 'Facility and hospital affiliations from Doctors and Clinicians; empty when none.'),
  },
  'A provider profile (2.7).',
);
export type ProviderProfile = Infer<typeof ProviderProfile>;

/** A value `specialty=` matches: its name, where it comes from, and how many providers answer to it. */
export const Specialty = record(
  {
    specialty: { type: 'string', description: 'The value to give specialty= (any case, accents and punctuation).' },
    sources: arrayOf(
      { enum: ['nucc_display_name', 'nucc_classification', 'nucc_specialization', 'cms_specialty', 'alias'] },
      { minItems: 1 },
    ),
    providers: { type: 'integer', minimum: 1 },
  },
  'A specialty of the build\'s providers (docs/api.md, "Specialties").',
);
export type Specialty = Infer<typeof Specialty>;
