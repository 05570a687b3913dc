import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { facilityProviderCounts } from '../pipeline/facilities/affiliations.ts';
import { clinicianFacilityNames } from '../pipeline/store/providers.ts';
import type { Facility } from '../pipeline/facilities/roster.ts';

const facility = (id: number, name: string, state: string) => ({ id, name, state }) as Facility;

describe('clinicians per facility (Doctors and Clinicians affiliations)', () => {
  it('counts each clinician once per facility, by name in the same state, whatever the rows repeat', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE stage_clinicians (npi TEXT, state TEXT, facility_names TEXT)');
    const insert = db.prepare('INSERT INTO stage_clinicians VALUES (?, ?, ?)');
    const rows: Array<[string, string, string[]]> = [
      ['1000000001', 'PA', ['Penn Presbyterian Medical Center', 'Hospital of the University of Pennsylvania']],
      ['1000000001', 'PA', ['Penn Presbyterian Medical Center']], // a second address of the same clinician
      ['1000000002', 'PA', ['PENN PRESBYTERIAN MEDICAL CENTER']], // the same name, written otherwise
      ['1000000003', 'NJ', ['Penn Presbyterian Medical Center']], // another state: another facility, none here
      ['1000000004', 'PA', []],
      ['1000000005', 'PA', ['A Clinic Not In The Roster']],
    ];
    for (const [npi, state, names] of rows) insert.run(npi, state, JSON.stringify(names));
    const counts = facilityProviderCounts(clinicianFacilityNames(db), [
      facility(7, 'Penn Presbyterian Medical Center', 'PA'),
      facility(8, 'Hospital of the University of Pennsylvania', 'PA'),
      facility(9, 'Cooper University Hospital', 'NJ'),
    ]);
    expect(Object.fromEntries(counts)).toEqual({ 7: 2, 8: 1 });
  });
});
