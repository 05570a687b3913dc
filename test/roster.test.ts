import { describe, expect, it } from 'vitest';
import type { FacilityRow } from '../pipeline/layouts/facilities.ts';
import { buildRoster, cmsListsCcnType } from '../pipeline/facilities/roster.ts';
import type { SourcedFacilityRow } from '../pipeline/ingest/ingested.ts';
import { namesAgree } from '../pipeline/facilities/names.ts';

let line = 1;
function row(source: FacilityRow['source'], fields: Partial<FacilityRow>): SourcedFacilityRow {
  return {
    source,
    ccn: null,
    hifldId: null,
    name: 'X',
    type: 'General Acute Care',
    address: '',
    city: 'Town',
    state: 'NV',
    zip: '89406',
    phone: '',
    website: '',
    latitude: null,
    longitude: null,
    staffedBeds: null,
    licensedBeds: null,
    emergency: null,
    rating: null,
    traumaLevel: null,
    status: 'open',
    ...fields,
    origin: { key: source, line: ++line },
  };
}
const cms = (ccn: string, name: string, zip = '89406', extra: Partial<FacilityRow> = {}) =>
  row('cms', { ccn, name, zip, type: 'Acute Care Hospital', emergency: true, ...extra });
// Every ZIP of these tests lies at one point, 20 miles from the hospitals' own coordinates.
const options = { zipPoint: () => ({ latitude: 39.5, longitude: -118.4 }), matchMiles: 10 };
const at = { latitude: 39.47, longitude: -118.78 };

describe('the hospital roster', () => {
  it('CMS is the roster of record; CovidCareMap joins by CCN and HIFLD through its HIFLD.ID, adding place and beds', () => {
    const { facilities, stats, withdrawn } = buildRoster(
      [
        cms('290006', 'Banner Churchill Community Hospital', '89406', { rating: 3 }),
        row('covidcaremap', {
          ccn: '290006',
          hifldId: '0000000042',
          name: 'BANNER CHURCHILL COMMUNITY HOSP',
          staffedBeds: 25,
          licensedBeds: 40,
          ...at,
        }),
        row('hifld', { hifldId: '0000000042', name: 'CHURCHILL HOSPITAL', licensedBeds: 40, traumaLevel: 4, ...at }),
      ],
      options,
    );
    expect(withdrawn).toEqual([]);
    expect(facilities).toHaveLength(1);
    expect(facilities[0]).toMatchObject({
      name: 'Banner Churchill Community Hospital',
      staffedBeds: 25,
      licensedBeds: 40,
      traumaLevel: 4,
      rating: 3,
      ...at,
    });
    expect(facilities[0].sources).toEqual(['cms', 'covidcaremap', 'hifld']);
    expect(stats.joined).toEqual({ covidcaremap_by_ccn: 1, hifld_by_id: 1 });
  });

  it('leaves out closed hospitals: HIFLD STATUS CLOSED, and a CMS-listed type of CCN the current CMS file lacks (with its HIFLD record)', () => {
    const closedHifld = row('hifld', { name: 'Old Hospital', status: 'closed', ...at });
    const hahnemann = row('covidcaremap', {
      ccn: '390290',
      hifldId: '0006819102',
      name: 'Hahnemann University Hospital',
      staffedBeds: 387,
      ...at,
    });
    const hahnemannHifld = row('hifld', { hifldId: '0006819102', name: 'Hahnemann University Hospital', ...at });
    const { facilities, withdrawn, stats } = buildRoster(
      [cms('290006', 'Banner Churchill'), closedHifld, hahnemann, hahnemannHifld],
      options,
    );
    expect(facilities.map((f) => f.name)).toEqual(['Banner Churchill']);
    expect(withdrawn.map((w) => [w.origin.line, w.kind])).toEqual([
      [hahnemann.origin.line, 'excluded'],
      [closedHifld.origin.line, 'excluded'],
      [hahnemannHifld.origin.line, 'excluded'],
    ]);
    expect(withdrawn[0].reason).toMatch(/CCN 390290 is not in the current CMS hospital list/);
    expect(stats.excluded).toEqual({ ccn_not_in_current_cms: 2, closed_status: 1 });
  });

  it('joins unlinked records to a CMS hospital of an agreeing name in the same ZIP at any distance, or nearby; adds open hospitals CMS lacks', () => {
    const rows = [
      cms('290008', 'Sevier Valley Hospital', '84701'),
      cms('290009', 'Corporal Michael J Crescenz VA Medical Center', '19104', { type: 'Acute Care - Veterans Administration' }),
      row('hifld', { name: 'Sevier Valley Medical Center', zip: '84701', ...at }), // same ZIP, 20 miles from the ZIP point
      row('hifld', { name: 'VA Medical Center - Philadelphia', zip: '19104', type: 'Military', ...at }),
      row('hifld', { name: 'Kindred Hospital Reno', zip: '89502', ...at }),
      row('covidcaremap', { ccn: '292001', hifldId: '0000000077', name: 'Kindred Hospital Reno', zip: '89502', ...at }),
      row('hifld', { name: 'Kindred Hospital Reno', zip: '89502', hifldId: '0000000077', ...at }),
    ];
    const { facilities, stats } = buildRoster(rows, options);
    expect(facilities.map((f) => [f.name, f.type, f.sources.join('+')])).toEqual([
      ['Sevier Valley Hospital', 'Acute Care Hospital', 'cms+hifld'],
      ['Corporal Michael J Crescenz VA Medical Center', 'Acute Care - Veterans Administration', 'cms+hifld'],
      // Two records of one hospital at one point are one hospital: a long-term care hospital by its CCN
      // range, though HIFLD calls it general acute care.
      ['Kindred Hospital Reno', 'Long-Term Care Hospital', 'hifld+covidcaremap'],
    ]);
    expect(stats.roster).toEqual({ cms: 2, open_hifld_not_in_cms: 1 });
    expect(stats.joined).toEqual({ by_name_nearby: 2, duplicate_record: 2 });
  });

  it('keeps one health centre site per name and point', () => {
    const site = { name: 'Valley Clinic', latitude: 39.1, longitude: -118.1 };
    const { facilities } = buildRoster([row('hrsa', site), row('hrsa', site), row('hrsa', { ...site, latitude: 39.2 })], options);
    expect(facilities.map((f) => [f.isHospital, f.latitude])).toEqual([
      [false, 39.1],
      [false, 39.2],
    ]);
  });

  it('knows which CCN types the CMS hospital list covers', () => {
    expect(['390290', '291308', '053300', '054123'].map(cmsListsCcnType)).toEqual([true, true, true, true]);
    expect(['292001', '293025', '295001'].map(cmsListsCcnType)).toEqual([false, false, false]);
  });

  it('agrees on names the way sources differ, and not across places', () => {
    expect(namesAgree('BANNER PAYSON REGIONAL MEDICAL CENTER', 'Banner Payson Medical Center')).toBe(true);
    expect(namesAgree("St. Joseph's Hospital Medical Center", 'ST JOSEPHS HOSPITAL AND MEDICAL CENTER')).toBe(true);
    expect(namesAgree('Mercy Hospital', 'Saint Mary Hospital')).toBe(false);
    expect(namesAgree('Humboldt General Hospital', 'Humboldt County Memorial Hospital')).toBe(true);
  });
});
