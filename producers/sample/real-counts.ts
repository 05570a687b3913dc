/**
 * The real clinician counts per county, as the build chooses them (pipeline/supply/counts.ts): each count file
 * read per count kind and county (a tract's or ZIP's clinicians in its county; a renamed or split county's under
 * the codes of the crosswalks, split by residents; a state's clinicians under codes no crosswalk names, such as
 * Connecticut's planning regions, spread by residents over the state's counties the file counts nothing for),
 * and in each county the count of the most recent year (the earlier file of the manifest between equals).
 * test/real-counts.test.ts holds these counts to the build's own.
 */
import { categoriesOfCmsSpecialty, type Category } from '../../pipeline/config/specialties.ts';
import { emptyIngested, type CountSource, type ProviderFiling } from '../../pipeline/ingest/ingested.ts';
import type { Geography } from './geography.ts';
import { RealCounties } from './real-counties.ts';
import { readFiled, type RealFiles } from './real-world.ts';

/** Per count kind, each county's clinicians by the file that wins the county. */
export type CountyCounts = ReadonlyMap<string, ReadonlyMap<string, number>>;

/** What the synthetic clinicians follow: the counties, the counts per county, and the rosters. */
export interface RealCounts {
  counties: RealCounties;
  counts: CountyCounts;
  /** Clinicians of the manifest's rosters (doctors_clinicians files) per category they count in: ZCTA index and ZIP. */
  rosters: Map<Category, Array<{ zcta: number; zip: string }>>;
}

/** Reads the county crosswalks, the clinician count files and the rosters of the manifest the world was read from. */
export async function loadRealCounts(files: RealFiles, geo: Geography, population: ArrayLike<number>): Promise<RealCounts> {
  const rosters = new Map<Category, Array<{ zcta: number; zip: string }>>();
  const categoriesOf = new Map<string, Category[]>();
  const filing: ProviderFiling = {
    providers: {
      addProvider() {},
      addClinician(row, _line, zcta) {
        const z = zcta === null ? undefined : geo.byCode.get(zcta);
        let categories = categoriesOf.get(row.specialty);
        if (!categories) categoriesOf.set(row.specialty, (categories = categoriesOfCmsSpecialty(row.specialty)));
        for (const category of z ? categories : []) {
          const list = rosters.get(category) ?? [];
          list.push({ zcta: z!.index, zip: row.zip });
          rosters.set(category, list);
        }
      },
    },
    zctaOf: (zip) => files.zctaOf.of(zip),
    specialtyOf: () => '',
  };
  const layouts = new Set(['zip_county', 'zcta_county', 'clinician_counts', 'doctors_clinicians']);
  const data = await readFiled(
    files.manifest.sources.filter((s) => layouts.has(s.layout)),
    filing,
    { ...emptyIngested(), zipToZcta: files.zipToZcta },
  );
  const counties = new RealCounties(geo.zctas, population, data);
  const zctaIndexOf = (zip: string) => geo.byCode.get(files.zctaOf.of(zip) ?? '')?.index;
  return { counties, counts: countyCounts(data.clinicianCounts, counties, zctaIndexOf), rosters };
}

/** The winning count of every kind in every county a file counts. `zctaOfZip` places the rows of a file counted by ZIP. */
export function countyCounts(
  sources: readonly CountSource[],
  counties: RealCounties,
  zctaOfZip: (zip: string) => number | undefined,
): CountyCounts {
  const candidates = new Map<string, Map<string, Array<{ year: number; order: number; amount: number }>>>();
  sources.forEach((source, order) => {
    for (const kind of source.kinds) {
      let forKind = candidates.get(kind);
      if (!forKind) candidates.set(kind, (forKind = new Map()));
      for (const [county, amount] of fileCounts(source, kind, counties, zctaOfZip))
        forKind.set(county, [...(forKind.get(county) ?? []), { year: source.year, order, amount }]);
    }
  });
  return new Map(
    [...candidates].map(([kind, forKind]) => [
      kind,
      new Map([...forKind].map(([county, list]) => [county, list.sort((a, b) => b.year - a.year || a.order - b.order)[0].amount])),
    ]),
  );
}

/** One file's clinicians of one kind per county of the crosswalks. */
function fileCounts(
  source: CountSource,
  kind: string,
  counties: RealCounties,
  zctaOfZip: (zip: string) => number | undefined,
): Map<string, number> {
  const byCounty = new Map<string, number>();
  const add = (county: string, amount: number) => byCounty.set(county, (byCounty.get(county) ?? 0) + amount);
  const unknown = new Map<string, number>();
  // A tract file names each county thousands of times: its counties of the crosswalks are worked out once.
  const splits = new Map<string, Array<[string, number]>>();
  const splitOf = (code: string) => {
    let split = splits.get(code);
    if (!split) splits.set(code, (split = byResidents(counties, counties.current(code))));
    return split;
  };
  for (const row of source.rows) {
    const amount = row.counts[kind];
    if (amount === null || amount === undefined || row.area === 'nation' || row.area === 'state') continue;
    if (row.area === 'zip') {
      const zcta = zctaOfZip(row.code);
      for (const [county, share] of zcta === undefined ? [] : counties.shares[zcta]) add(county, amount * share);
      continue;
    }
    const code = row.code.slice(0, 5);
    const split = splitOf(code);
    if (split.length === 0) unknown.set(code.slice(0, 2), (unknown.get(code.slice(0, 2)) ?? 0) + amount);
    for (const [county, share] of split) add(county, amount * share);
  }
  for (const [state, amount] of unknown) {
    const open = counties.countiesOf(state).filter((c) => !byCounty.has(c));
    for (const [county, share] of byResidents(counties, open.length ? open : counties.countiesOf(state))) add(county, amount * share);
  }
  return byCounty;
}

/** Shares of the given counties by their residents (equal where none has any). */
function byResidents(counties: RealCounties, list: readonly string[]): Array<[string, number]> {
  const residents = list.map((c) => counties.residentsOf(c));
  const total = residents.reduce((a, b) => a + b, 0);
  return list.map((c, i) => [c, total > 0 ? residents[i] / total : 1 / list.length]);
}
