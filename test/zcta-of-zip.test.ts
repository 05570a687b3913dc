import { describe, expect, it } from 'vitest';
import { zipNumber } from '../core/zip-number.ts';
import { ZctaOfZip } from '../pipeline/ingest/zcta-of-zip.ts';

describe('ZctaOfZip', () => {
  const zipToZcta = new Map([
    ['00501', { zcta: '11742' }], // a unique ZIP (IRS Holtsville) to its surrounding ZCTA
    ['10001', { zcta: '10001' }],
    ['20500', { zcta: '20004' }],
    ['A1B2C', { zcta: '99999' }], // not five digits: answered by the map itself
  ]);
  const zctas = new Map<string, unknown>([
    ['10001', {}],
    ['11742', {}],
    ['20004', {}],
    ['59260', {}], // a ZCTA the crosswalk does not list
  ]);
  const byMaps = (zip: string) => zipToZcta.get(zip)?.zcta ?? (zctas.has(zip) ? zip : null);

  it('answers what the crosswalk and the Gazetteer answer, for every five-digit ZIP and odd text', () => {
    const table = new ZctaOfZip(zipToZcta, zctas);
    const zips = Array.from({ length: 100_000 }, (_, n) => String(n).padStart(5, '0'));
    for (const zip of [...zips, 'A1B2C', '', '1234', '123456', '1234 ', '１２３４５']) expect(table.of(zip), zip).toBe(byMaps(zip));
  });

  it('numbers five-digit codes only', () => {
    expect([zipNumber('00501'), zipNumber('99999'), zipNumber('00000')]).toEqual([501, 99999, 0]);
    for (const text of ['', '0050', '005011', '0050a', ' 0501', '0-501']) expect(zipNumber(text), text).toBe(-1);
  });
});
