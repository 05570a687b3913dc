/**
 * Crosswalk files: UDS Mapper ZIP→ZCTA, 2020 ZCTA→county, OMB county→CBSA delineation and NCHS urban-rural
 * codes, each in its official layout (column names, order, quoting and line endings of the real files).
 */
import { join } from 'node:path';
import type { Geography } from './geography.ts';
import type { County } from './counties.ts';
import type { MetroModel } from './metro.ts';
import { stateInfo } from './states.ts';
import { csvLine, quoted, writeLines } from './writer.ts';

/** UDS Mapper ZIP to ZCTA crosswalk header. */
export const UDS_HEADER = 'ZIP_CODE,PO_NAME,STATE,ZIP_TYPE,ZCTA,zip_join_type';
/** 2020 ZCTA to county header (every name quoted, as in the real file). */
export const ZCTA_COUNTY_HEADER =
  '"zcta","zcta_numeric","state_name","state_usps","state_fips","state_fips_numeric","county_name","county_fips","county_fips_numeric"';
/** OMB delineation (county to CBSA) header. */
export const CBSA_HEADER =
  'county_fips,state_fips,state_name,county_name,cbsa_code,cbsa_title,cbsa_type,csa_code,csa_title,central_outlying';
/** NCHS urban-rural classification header. */
export const NCHS_HEADER = 'STFIPS,CTYFIPS,ST_ABBREV,CTYNAME,CBSATITLE,CBSAPOP,CTYPOP,CODE2023,CODE2013,CODE2006,CODE1990';

/** Writes crosswalks/zip_zcta_crosswalk.csv; returns the row count. */
export async function writeZipZcta(outDir: string, geo: Geography): Promise<number> {
  const rows: [string, string][] = [];
  for (const p of geo.postal) {
    const zcta = geo.zipToZcta.get(p.zip);
    if (!zcta) continue;
    const own = zcta === p.zip;
    const type = own ? 'Zip Code Area,' + zcta + ',Zip matches ZCTA' : `Post Office or large volume customer,${zcta},Spatial join to ZCTA`;
    rows.push([p.zip, `${p.zip},${csvLine([p.city])},${p.state},${type}`]);
  }
  // ZCTAs with no postal ZIP of their own appear as the real file shows them ("populated ZCTA, missing zip").
  for (const z of geo.zctas) {
    if (geo.postalByZip.has(z.code)) continue;
    const kind = '"populated ZCTA, missing zip"';
    rows.push([z.code, `${z.code},ZCTA ${z.code},${z.state},${kind},${z.code},${kind}`]);
  }
  rows.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  return writeLines(
    join(outDir, 'crosswalks/zip_zcta_crosswalk.csv'),
    UDS_HEADER,
    rows.map(([, line]) => line),
  );
}

/** Writes crosswalks/zcta_county.csv: one row per ZCTA and county (a few ZCTAs have two). */
export async function writeZctaCounty(outDir: string, geo: Geography, zctaCounties: County[][]): Promise<number> {
  function* lines() {
    for (const z of geo.zctas) {
      const list = [...zctaCounties[z.index]!].sort((a, b) => (a.fips < b.fips ? -1 : 1));
      for (const c of list) {
        const st = stateInfo(c.state);
        // The real file (from the Census relationship file via zctaCrosswalk) lower-cases names.
        yield [
          quoted(z.code),
          String(Number(z.code)),
          quoted(st.name.toLowerCase()),
          quoted(st.abbr),
          quoted(st.fips),
          String(Number(st.fips)),
          quoted(c.name.toLowerCase()),
          quoted(c.fips),
          String(Number(c.fips)),
        ].join(',');
      }
    }
  }
  return writeLines(join(outDir, 'crosswalks/zcta_county.csv'), ZCTA_COUNTY_HEADER, lines());
}

/** Writes crosswalks/county_cbsa.csv: only counties inside a metro or micro area, as OMB publishes it. */
export async function writeCountyCbsa(outDir: string, counties: County[], metro: MetroModel): Promise<number> {
  const lines: string[] = [];
  for (const c of counties) {
    const a = metro.cbsaOf.get(c);
    if (!a) continue;
    const st = stateInfo(c.state);
    lines.push(
      csvLine([
        c.fips,
        st.fips,
        st.name,
        c.name,
        a.code,
        a.title,
        a.type,
        a.csa?.code ?? '',
        a.csa?.title ?? '',
        a.central.has(c) ? 'Central' : 'Outlying',
      ]),
    );
  }
  return writeLines(join(outDir, 'crosswalks/county_cbsa.csv'), CBSA_HEADER, lines);
}

/** Writes crosswalks/nchs_urban_rural_codes.csv (CRLF line endings and integer FIPS, like the real file). */
export async function writeNchs(outDir: string, counties: County[], metro: MetroModel): Promise<number> {
  const lines: string[] = [];
  for (const c of counties) {
    const codes = metro.nchs.get(c);
    if (!codes) continue;
    const a = metro.cbsaOf.get(c);
    lines.push(
      csvLine([
        Number(c.fips.slice(0, 2)),
        Number(c.fips.slice(2)),
        c.state,
        c.name,
        a?.title ?? '',
        a ? a.population : '',
        c.population,
        ...codes,
      ]),
    );
  }
  return writeLines(join(outDir, 'crosswalks/nchs_urban_rural_codes.csv'), NCHS_HEADER, lines, { eol: '\r\n' });
}
