import { describe, expect, it } from 'vitest';
import { validationReport, type ValidationZip } from '../pipeline/validate/report.ts';
import { averageRanks, pearson, spearman } from '../pipeline/validate/stats.ts';

describe('rank statistics', () => {
  it('ranks ties at their mean rank and computes Spearman as Pearson over ranks (checked by hand)', () => {
    expect(averageRanks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1]);
    expect(spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7])).toBeCloseTo(0.8208, 4);
    expect(spearman([1, 2, 3], [3, 2, 1])).toBe(-1);
    expect(pearson([1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 12);
    expect(pearson([1, 1, 1], [1, 2, 3])).toBeNaN();
  });
});

function zip(overrides: Partial<ValidationZip>): ValidationZip {
  return {
    zip: '00000',
    city: 'Town',
    state: 'NV',
    population: 1000,
    ranked: true,
    urbanRuralCode: null,
    ruca: null,
    svi: null,
    healthscore: 60,
    people: 80,
    provider: null,
    primaryCareWithin10Miles: null,
    hospital: 60,
    travel: 60,
    referenceHospitalMinutes: null,
    hospitalInZip: false,
    emergencyHospitalInZip: false,
    residentialState: 'NV',
    ...overrides,
  };
}

describe('the validation report', () => {
  const zips = [
    ...[1, 2, 3, 4, 5, 6].map((code) =>
      zip({
        zip: `1000${code}`,
        urbanRuralCode: code,
        healthscore: 95 - code * 12,
        hospital: 100 - code * 15,
        referenceHospitalMinutes: code * 20,
        population: 10_000,
      }),
    ),
    zip({ zip: '89310', healthscore: 20, hospital: 5, referenceHospitalMinutes: 150, population: 500 }),
    zip({ zip: '89406', healthscore: 45, hospitalInZip: true, emergencyHospitalInZip: true, population: 25_000, state: 'NV' }),
    zip({ zip: '10021', healthscore: 91 }),
    zip({ zip: '85006', healthscore: 60, people: 40 }),
    zip({ zip: '99999', healthscore: 100, ranked: false, population: 5 }),
  ];

  it('checks bands, the urban-rural gradient, drive times, medical centres, frontier ZIPs, towns and states', () => {
    const report = validationReport(zips);
    const byName = Object.fromEntries(report.checks.map((c) => [c.name.split(' ').slice(0, 3).join(' '), c]));
    expect(report.urbanRural.map((c) => c.healthscore)).toEqual([83, 71, 59, 47, 35, 23]);
    expect(byName['the overall score'].pass).toBe(true);
    expect(byName['the hospital component'].pass).toBe(true);
    expect(byName['frontier ZIPs (90+'].value).toBe('3 of 3');
    expect(byName['every band holds'].pass).toBe(true);
    expect(byName['academic medical centre'].pass).toBe(true); // 85006 misses, but its residents' need explains it
    expect(byName['academic medical centre'].note).toMatch(/85006 60 \(people 40\)/);
    expect(byName['no town of'].value).toBe('0 of 1');
    expect(byName['no ZIP of'].value).toBe('0 of 1; 0% with a hospital component below 50');
    expect(byName['every ZIP is'].pass).toBe(true);
    // The unranked ZIP of 5 residents scoring 100 counts nowhere: the top band holds nobody.
    expect(report.bands.find((b) => b.label === 'Healthcare Paradise')!.residents).toBe(1000);
  });

  it('fails what the world contradicts: a desert town with a hospital, a ZIP in the wrong state, a rich medical-centre ZIP below the top bands', () => {
    const report = validationReport([
      ...zips.filter((z) => z.zip !== '89406' && z.zip !== '10021'),
      zip({ zip: '89406', healthscore: 20, hospitalInZip: true, emergencyHospitalInZip: true, population: 25_000 }),
      zip({ zip: '99362', state: 'OR', residentialState: 'WA' }),
      zip({ zip: '10021', healthscore: 60, people: 88 }),
    ]);
    const failed = report.checks.filter((c) => !c.pass).map((c) => c.name);
    expect(failed).toEqual([
      'every band holds residents, none most of them', // nobody is left in the top band
      'academic medical centre ZIPs are in the top two bands',
      'no town of 20,000+ residents with a hospital is a Healthcare Desert',
      'no ZIP of 5,000+ residents holding an emergency hospital (CMS file) is a Healthcare Desert',
      'every ZIP is in the state where most of its residents live (HUD residential addresses)',
    ]);
  });
});

describe('the emergency-hospital check', () => {
  const town = (overrides: Partial<ValidationZip>) =>
    zip({
      zip: '85634',
      healthscore: 20,
      hospital: 45,
      provider: 6,
      primaryCareWithin10Miles: 0,
      emergencyHospitalInZip: true,
      population: 5_667,
      ...overrides,
    });

  it('fails a desert that holds an emergency hospital, names it and lists the weakest hospital components', () => {
    const check = validationReport([town({})]).checks.find((c) => c.name.startsWith('no ZIP of 5,000+'))!;
    expect(check).toMatchObject({ pass: false, value: '1 of 1; 100% with a hospital component below 50' });
    expect(check.note).toBe('deserts: 85634 Town NV; lowest hospital components: 85634 Town NV 45 (overall 20)');
  });

  it('reports, without failing, a desert whose only want is clinicians a synthetic sample did not draw', () => {
    const check = validationReport([town({})], { syntheticProviders: true }).checks.find((c) => c.name.startsWith('no ZIP of 5,000+'))!;
    expect(check.pass).toBe(true);
    expect(check.note).toMatch(/^deserts: 85634 Town NV \(no synthetic primary care clinician within 10 miles\)/);
    // Real provider files: no such excuse; nor for a synthetic build whose sample did reach the ZIP.
    expect(
      validationReport([town({ primaryCareWithin10Miles: 2 })], { syntheticProviders: true }).checks.find((c) =>
        c.name.startsWith('no ZIP of 5,000+'),
      )!.pass,
    ).toBe(false);
  });

  it('leaves out towns under 5,000 residents and ZIPs without an emergency hospital', () => {
    const check = validationReport([town({ population: 4_999 }), town({ zip: '85635', emergencyHospitalInZip: false })]).checks.find((c) =>
      c.name.startsWith('no ZIP of 5,000+'),
    )!;
    expect(check).toMatchObject({ pass: false, value: '0 of 0; 0% with a hospital component below 50' });
  });
});
