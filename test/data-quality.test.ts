import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { widgetSummary } from '../src/api/widget-summary.ts';
import { DataQualityCatalog } from '../src/query/data-quality.ts';

function catalog(provider: object, clinicians?: object): DataQualityCatalog {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  db.prepare("INSERT INTO meta VALUES ('data_quality', ?)").run(
    JSON.stringify({
      provider,
      prevalence_measures: [
        { score_type_id: 1, measure: null, available: false },
        { score_type_id: 3, measure: 'DIABETES', available: false },
        { score_type_id: 10, measure: 'CSMOKING', available: true },
      ],
      small_population_threshold: 100,
      ...(clinicians && { clinicians }),
    }),
  );
  return new DataQualityCatalog(db);
}
const row = { _small: 0, _road: 1, _point: 'hud_residential', _imputed: null, _prevalence: 0, _type: 1, _basis: null, _noProvider: 0 };

describe('data_quality of a score record', () => {
  it('says the provider component is missing, and why, when the build published none', () => {
    const quality = catalog({ status: 'omitted' }).of(row);
    expect(quality.components).toEqual({ people: 'measured', provider: 'missing', hospital: 'measured', travel: 'measured' });
    expect(quality.note).toBe(
      'The provider files cover only part of the country, so this score leaves clinician supply out and rests on people, hospitals and travel.',
    );
  });

  it('names a declared sample with its share', () => {
    const quality = catalog({ status: 'sample', sample_fraction: 0.0826921 }).of(row);
    expect(quality.components.provider).toBe('sample');
    expect(quality.note).toMatch(/declared sample of 8.27% of clinicians/);
  });

  it("flags small populations, imputed census measures, a missing PLACES measure, no residents' point and straight-line travel", () => {
    const quality = catalog({ status: 'measured' }).of({
      _small: 1,
      _road: 0,
      _point: 'gazetteer_internal',
      _imputed: 'uninsured_pct,poverty_pct',
      _prevalence: 0,
      _type: 3,
      _basis: null,
      _noProvider: 0,
    });
    expect(quality).toMatchObject({
      small_population: true,
      travel_times: 'straight_line',
      location: 'area',
      prevalence: 'missing',
      imputed: ['uninsured_pct', 'poverty_pct'],
      components: { people: 'estimated' },
    });
    expect(quality.note).toBe(
      'Fewer than 100 people live here, so the census shares rest on a few households and this ZIP is kept out of rankings. ' +
        'No census value for uninsured, poverty here; the national median stands in. No CDC PLACES DIABETES prevalence in this build, so the score counts no condition prevalence. ' +
        "Distances are measured from the middle of the ZIP's area: no point of its residents' addresses is known. Travel times are estimated from straight-line miles.",
    );
    expect(catalog({ status: 'measured' }).of({ ...row, _type: 10, _prevalence: 1 }).prevalence).toBe('used');
    expect(catalog({ status: 'measured' }).of({ ...row, _type: 10 }).note).toMatch(/No CDC PLACES CSMOKING prevalence for this ZIP/);
    expect(catalog({ status: 'measured' }).of(row).note).toBe("Every component is measured from the build's sources.");
    expect(catalog({ status: 'measured' }).of(row).location).toBe('residents');
  });
});

describe('data_quality.clinicians: where each category of the score type comes from in the ZIP', () => {
  const clinicians = {
    categories: ['primary_care', 'dentistry', 'cardiology', 'dietetics'],
    score_types: { 1: { primary_care: 0.6, dentistry: 0.2, cardiology: 0.2 }, 3: { primary_care: 0.5, dietetics: 0.5 } },
    sources: {},
  };
  const measured = catalog({ status: 'measured' }, clinicians);

  it('reads one letter per category from zips.clinician_basis, in the order meta lists them, with the type weights', () => {
    const quality = measured.of({ ...row, _basis: 'cce-' });
    expect(quality.clinicians).toEqual([
      { category: 'primary_care', weight: 0.6, basis: 'count' },
      { category: 'dentistry', weight: 0.2, basis: 'count' },
      { category: 'cardiology', weight: 0.2, basis: 'estimate' },
    ]);
    expect(quality.components.provider).toBe('estimated');
    expect(quality.note).toMatch(/No count of cardiology clinicians is known: they are estimated/);
    // Categories in words, as a sentence says them: not "No count of dentistry, cardiology clinicians".
    expect(measured.of({ ...row, _basis: 'cee' }).note).toMatch(/^No count of dental or cardiology clinicians is known/);
  });

  it('is measured where every category is counted, and names a category no source counts', () => {
    expect(measured.of({ ...row, _basis: 'cccc' }).components.provider).toBe('measured');
    const quality = measured.of({ ...row, _type: 3, _basis: 'cccc'.slice(0, 3) + '-' });
    expect(quality.clinicians).toEqual([
      { category: 'primary_care', weight: 0.5, basis: 'count' },
      { category: 'dietetics', weight: 0.5, basis: 'none' },
    ]);
    expect(quality.note).toMatch(/No source counts dietetics clinicians here, so the provider component weighs the other categories/);
  });

  it('says the provider component is missing in a ZIP whose score has none, though the build has one', () => {
    const quality = measured.of({ ...row, _basis: '----', _noProvider: 1 });
    expect(quality.components.provider).toBe('missing');
    expect(quality.note).toMatch(/^No source counts the clinicians of this ZIP, so this score leaves clinician supply out/);
    expect(quality.clinicians.every((c) => c.basis === 'none')).toBe(true);
  });
});

describe("the widget's sentence", () => {
  it('speaks of hospitals only when the build could not count clinicians', () => {
    expect(widgetSummary({ label: 'Moderate Access', hospitals: 2, clinicians: null, nearestHospitalMiles: 1.2 })).toBe(
      'Moderate access: 2 hospitals within 10 miles',
    );
    expect(widgetSummary({ label: 'Healthcare Desert', hospitals: 0, clinicians: null, nearestHospitalMiles: 48.2 })).toBe(
      'Healthcare desert: no hospital within 10 miles; the nearest hospital is 48.2 miles away',
    );
  });
});
