import { describe, expect, it } from 'vitest';
import { countyShares, homeCounty } from '../pipeline/geo/places.ts';
import { countyFor2023Tables } from '../pipeline/geo/connecticut.ts';
import type { ZctaCountyRow, ZipCountyRow } from '../pipeline/layouts/crosswalks.ts';

const hud = (zip: string, countyFips: string, residentialRatio: number, totalRatio = residentialRatio): ZipCountyRow => ({
  zip,
  countyFips,
  residentialRatio,
  totalRatio,
});
function data(hudRows: ZipCountyRow[], zctaRows: ZctaCountyRow[] = []) {
  const zipCounties = new Map<string, ZipCountyRow[]>();
  for (const r of hudRows) zipCounties.set(r.zip, [...(zipCounties.get(r.zip) ?? []), r]);
  const zctaCounties = new Map<string, ZctaCountyRow[]>();
  for (const r of zctaRows) zctaCounties.set(r.zcta, [...(zctaCounties.get(r.zcta) ?? []), r]);
  return { zipCounties, zctaCounties };
}

describe('the county and state of a ZIP: where most of its residents live', () => {
  it('takes the county with the largest residential share, not the first listed (Walla Walla: 97% in WA)', () => {
    const d = data(
      [hud('99362', '41059', 0.03), hud('99362', '53071', 0.97)],
      [
        { zcta: '99362', countyFips: '41059', state: 'OR', weight: null },
        { zcta: '99362', countyFips: '53071', state: 'WA', weight: null },
      ],
    );
    expect(homeCounty('99362', ['99362'], d, 'WA')).toEqual({ countyFips: '53071', state: 'WA', rule: 'hud_residential' });
  });

  it('picks the state with most residents before the county: 40% in one county of OR loses to 35% + 25% in WA', () => {
    const d = data([hud('99362', '41059', 0.4), hud('99362', '53071', 0.35), hud('99362', '53013', 0.25)]);
    expect(homeCounty('99362', ['99362'], d)).toEqual({ countyFips: '53071', state: 'WA', rule: 'hud_residential' });
  });

  it('averages over the postal ZIPs of the ZCTA when its own number is not a residential ZIP, then all addresses', () => {
    const d = data([hud('10001', '36061', 0, 1), hud('10002', '36047', 0.6), hud('10003', '36061', 0.1), hud('10003', '36047', 0.1)]);
    expect(homeCounty('10001', ['10001', '10002', '10003'], d)).toEqual({ countyFips: '36047', state: 'NY', rule: 'hud_residential' });
    expect(homeCounty('10001', ['10001'], data([hud('10001', '36061', 0, 1)]))).toEqual({
      countyFips: '36061',
      state: 'NY',
      rule: 'hud_all_addresses',
    });
  });

  it('falls back to the ZCTA-county file, preferring the postal state over the first row', () => {
    const d = data(
      [],
      [
        { zcta: '82930', countyFips: '49043', state: 'UT', weight: null },
        { zcta: '82930', countyFips: '56041', state: 'WY', weight: null },
      ],
    );
    expect(homeCounty('82930', [], d, 'WY')).toEqual({ countyFips: '56041', state: 'WY', rule: 'zcta_county' });
    expect(homeCounty('00000', [], d)).toBeNull();
  });

  it("leaves out a HUD row in a state the Census ZCTA-county file does not put the ZCTA in (HUD files Guam's 96910 under American Samoa)", () => {
    const d = data([hud('96910', '60010', 1)], [{ zcta: '96910', countyFips: '66010', state: 'GU', weight: null }]);
    expect(homeCounty('96910', ['96910'], d, 'GU')).toEqual({ countyFips: '66010', state: 'GU', rule: 'zcta_county' });
    expect(countyShares('96910', ['96910'], d)).toEqual(new Map([['66010', 1]]));
    // Without the Census file's word, HUD's row stands.
    expect(homeCounty('96910', ['96910'], data([hud('96910', '60010', 1)]))).toMatchObject({ state: 'AS' });
  });

  it("joins Connecticut's old counties to 2023 tables through their planning region; other counties as they are", () => {
    expect(countyFor2023Tables('09003')).toBe('09110');
    expect(countyFor2023Tables('09110')).toBe('09110');
    expect(countyFor2023Tables('53071')).toBe('53071');
  });
});
