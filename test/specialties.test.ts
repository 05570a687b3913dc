import { describe, expect, it } from 'vitest';
import { categoriesOfCmsSpecialty, categoriesOfTaxonomy } from '../pipeline/config/specialties.ts';

describe('clinician categories', () => {
  it('match CMS specialty text with or without punctuation (older and current Doctors and Clinicians files)', () => {
    expect(categoriesOfCmsSpecialty('CARDIOVASCULAR DISEASE (CARDIOLOGY)')).toEqual(['cardiology']);
    expect(categoriesOfCmsSpecialty('CARDIOVASCULAR DISEASE CARDIOLOGY')).toEqual(['cardiology']);
    expect(categoriesOfCmsSpecialty('Obstetrics Gynecology')).toEqual(['obgyn']);
    expect(categoriesOfCmsSpecialty('HEMATOLOGY ONCOLOGY')).toEqual(['oncology']);
    expect(categoriesOfCmsSpecialty('PODIATRY')).toEqual([]);
  });
  it('match NUCC codes exactly or by prefix', () => {
    expect(categoriesOfTaxonomy('207Q00000X')).toEqual(['primary_care']);
    expect(categoriesOfTaxonomy('207XS0114X')).toEqual(['orthopaedics']);
    expect(categoriesOfTaxonomy(null)).toEqual([]);
  });
});
