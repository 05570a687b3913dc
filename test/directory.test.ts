import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haversineMiles } from '../core/distance.ts';
import { searchKey, specialtyKey } from '../core/search-key.ts';
import { specialtyNames } from '../pipeline/emit/specialty-keys.ts';
import { TAXONOMY_BY_CODE } from '../producers/sample/nucc.ts';
import { Api } from '../src/api/index.ts';
import { ProviderDirectory } from '../src/query/provider-directory.ts';
import { intersect, intersectAll, lowerBound, mergeRuns, unionWithInterval, withBitmap } from '../src/query/rank-sets.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { KNOWN_NPI } from './helpers/fixture-directory.ts';
import { seeded } from './helpers/seeded.ts';

interface ProviderRow {
  npi: string;
  first_name: string;
  last_name: string;
  state: string;
  city: string;
  zip_code: string;
  primary_taxonomy: string | null;
  primary_specialty: string;
}

interface FacilityRow {
  id: number;
  facility_name: string;
  facility_type: string;
  state_code: string;
  emergency_services: number;
  facility_rating: number | null;
}

let api: Api;
let providers: ProviderRow[];
let facilities: FacilityRow[];

beforeAll(async () => {
  const file = await fixtureDb();
  api = Api.open(file);
  const db = new Database(file, { readonly: true });
  providers = db
    .prepare('SELECT npi, first_name, last_name, state, city, zip_code, primary_taxonomy, primary_specialty FROM providers')
    .all() as ProviderRow[];
  facilities = db
    .prepare('SELECT id, facility_name, facility_type, state_code, emergency_services, facility_rating FROM facilities')
    .all() as FacilityRow[];
  db.close();
});
afterAll(() => api.retire());

async function get(url: string): Promise<{ status: number; body: any }> {
  const response = await api.respond({ method: 'GET', url });
  return { status: response.status, body: JSON.parse(response.body.toString('utf8')) };
}

/** Every page of a list, following `next`. */
async function everyPage(url: string): Promise<{ count: number; results: any[] }> {
  const results: any[] = [];
  let count = -1;
  for (let next: string | null = url; next; ) {
    const { status, body } = await get(next);
    expect(status, next).toBe(200);
    if (count >= 0) expect(body.count, 'count is the same on every page').toBe(count);
    count = body.count;
    results.push(...body.results);
    next = body.next;
  }
  return { count, results };
}

/** Each provider's search keys, computed once. */
const keysOf = new Map<ProviderRow, { first: string; last: string; city: string; specialties: Set<string> }>();
function keys(p: ProviderRow) {
  let k = keysOf.get(p);
  if (!k) {
    k = {
      first: searchKey(p.first_name),
      last: searchKey(p.last_name),
      city: searchKey(p.city),
      specialties: new Set(specialtyNames(p.primary_taxonomy, p.primary_specialty, TAXONOMY_BY_CODE).map((s) => s.key)),
    };
    keysOf.set(p, k);
  }
  return k;
}

/** The brute-force answer: a filter written out over every row, sorted as documented. */
function expectedProviders(filter: Record<string, string>): string[] {
  const name = filter.name === undefined ? undefined : searchKey(filter.name);
  const matches = providers.filter(
    (p) =>
      (filter.specialty === undefined || keys(p).specialties.has(specialtyKey(filter.specialty))) &&
      (filter.state === undefined || p.state === filter.state.toUpperCase()) &&
      (filter.city === undefined || keys(p).city === searchKey(filter.city)) &&
      (filter.zip === undefined || p.zip_code === filter.zip) &&
      (name === undefined || keys(p).first.startsWith(name) || keys(p).last.startsWith(name)),
  );
  const order = (p: ProviderRow) => [keys(p).last, keys(p).first, p.npi];
  return matches
    .sort((a, b) => {
      const [x, y] = [order(a), order(b)];
      for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
      return 0;
    })
    .map((p) => p.npi);
}

function expectedFacilities(filter: Record<string, string>, sort = 'facility_name'): number[] {
  const descending = sort.startsWith('-');
  const rating = (f: FacilityRow) => f.facility_rating;
  const search = filter.search === undefined ? undefined : searchKey(filter.search);
  const type = filter.type === undefined ? undefined : searchKey(filter.type);
  return facilities
    .filter(
      (f) =>
        (type === undefined ||
          (type === 'hospital' || type === 'hospitals' ? f.facility_type !== 'Health Center' : searchKey(f.facility_type) === type)) &&
        (filter.state === undefined || f.state_code === filter.state.toUpperCase()) &&
        (filter.emergency === undefined || f.emergency_services === (filter.emergency === 'true' ? 1 : 0)) &&
        (filter.min_rating === undefined || (f.facility_rating ?? 0) >= Number(filter.min_rating)) &&
        (search === undefined || searchKey(f.facility_name).includes(search)),
    )
    .sort((a, b) => {
      const [x, y] = [searchKey(a.facility_name), searchKey(b.facility_name)];
      const byName = x < y ? -1 : x > y ? 1 : 0;
      if (sort.endsWith('facility_rating') && rating(a) !== rating(b)) {
        // Unrated last either way.
        if (rating(a) === null || rating(b) === null) return rating(a) === null ? 1 : -1;
        return descending ? rating(b)! - rating(a)! : rating(a)! - rating(b)!;
      }
      if (sort === '-facility_name' && byName !== 0) return -byName;
      return byName || a.id - b.id;
    })
    .map((f) => f.id);
}

describe('rank sets against brute force', () => {
  it('intersections, bounds, merges and unions agree with Set arithmetic on random lists', () => {
    const random = seeded(7);
    const list = (size: number, density: number) =>
      Uint32Array.from(Array.from({ length: size }, (_, i) => i).filter(() => random() < density));
    for (let round = 0; round < 200; round++) {
      const size = 1 + Math.floor(random() * 5000);
      const lists = [list(size, random()), list(size, random() * 0.05), list(size, random())];
      const expected = [...lists[0]].filter((r) => lists[1].includes(r) && lists[2].includes(r));
      expect([...intersectAll(lists.map((l) => withBitmap(l, size)))]).toEqual(expected);
      expect([...intersect(lists[1], { ranks: lists[0] })]).toEqual([...lists[1]].filter((r) => lists[0].includes(r)));
      const value = Math.floor(random() * size);
      expect(lowerBound(lists[0], value)).toBe(
        [...lists[0]].findIndex((r) => r >= value) < 0 ? lists[0].length : [...lists[0]].findIndex((r) => r >= value),
      );
      const union = [...new Set([...lists[0], ...lists[1]])].sort((a, b) => a - b);
      expect([...mergeRuns([lists[0], lists[1]], 50)]).toEqual(union.slice(0, 50));
      const [lo, hi] = [Math.floor(random() * size), Math.floor(random() * size)].sort((a, b) => a - b);
      const withInterval = [...new Set([...lists[1], ...Array.from({ length: hi - lo }, (_, i) => lo + i)])].sort((a, b) => a - b);
      expect([...unionWithInterval(lists[1], lo, hi, 70)]).toEqual(withInterval.slice(0, 70));
    }
  });
});

describe('search keys', () => {
  it('fold case, accents and punctuation the same way on both sides', () => {
    expect(searchKey("O'Brien")).toBe('obrien');
    expect(searchKey('José')).toBe('jose');
    expect(searchKey('Nguyễn')).toBe('nguyen');
    expect(searchKey('ST. LOUIS')).toBe('st louis');
    expect(searchKey('Allergy & Immunology')).toBe('allergy and immunology');
    expect(searchKey('OBSTETRICS/GYNECOLOGY')).toBe('obstetrics gynecology');
    expect(searchKey('  Winston-Salem  ')).toBe('winston salem');
    expect(searchKey('😀 \u05e9\u05dc\u05d5\u05dd')).toBe('\u05e9\u05dc\u05d5\u05dd');
    expect(searchKey('\ud83d')).toBe('');
    expect(specialtyKey('Obstetrics & Gynecology')).toBe(specialtyKey('OBSTETRICS/GYNECOLOGY'));
    expect(specialtyKey('Registered Dietitian Or Nutrition Professional')).toBe(
      specialtyKey('REGISTERED DIETITIAN/NUTRITION PROFESSIONAL'),
    );
    expect(specialtyKey('Psychiatry & Neurology')).toBe('psychiatry neurology');
    expect(specialtyKey('Cardiovascular Disease (Cardiology)')).toBe('cardiovascular disease cardiology');
  });
});

describe('providers/ on the fixture: every filter combination against brute force', () => {
  it('200 seeded random combinations: every result matches, count is exact, order is last name, first name, NPI (or its reverse)', async () => {
    const random = seeded(20240808);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const sample = () => pick(providers);
    const values = {
      specialty: () =>
        pick([
          'cardiology',
          'Internal Medicine',
          'family',
          'Family Medicine',
          'PEDIATRICS',
          'primary care',
          'Psychiatry',
          'oncology',
          'Cardiovascular Disease (Cardiology)',
          'Registered Nurse',
          'obgyn',
          'Nurse Practitioner',
          sample().primary_specialty || 'x',
        ]),
      state: () => pick(['ny', 'DE', 'RI', 'dc', 'CA', 'AK', 'WY', sample().state]),
      city: () => pick(['new york', 'WILMINGTON', 'Providence', 'Nowhere', sample().city]),
      zip: () => pick(['10001', '19901', '02903', '99999', sample().zip_code]),
      name: () =>
        pick([
          's',
          'sm',
          'SMI',
          'smith',
          'jo',
          'john',
          "o'b",
          'obr',
          'gar',
          'garcía',
          'mary a',
          'lee',
          'z',
          'q',
          'ngu',
          sample().last_name.slice(0, 3),
          sample().first_name.slice(0, 2),
        ]),
    };
    const names = Object.keys(values) as Array<keyof typeof values>;
    for (let round = 0; round < 200; round++) {
      const filter: Record<string, string> = {};
      for (const name of names) if (random() < 0.4) filter[name] = values[name]();
      const sort = pick([undefined, 'last_name', '-last_name']);
      const expected = expectedProviders(filter);
      if (sort === '-last_name') expected.reverse();
      const pageSize = pick([7, 20, 100]);
      const url = `/api/v1/providers/?${new URLSearchParams({ ...filter, ...(sort && { sort }), page_size: String(pageSize) })}`;
      if (expected.length > 600) {
        // Large answers: the first and a middle page, not all of them.
        const page = 1 + Math.floor(random() * Math.ceil(expected.length / pageSize));
        const { status, body } = await get(`${url}&page=${page}`);
        expect(status, url).toBe(200);
        expect(body.count, url).toBe(expected.length);
        expect(
          body.results.map((r: { npi: string }) => r.npi),
          `${url}&page=${page}`,
        ).toEqual(expected.slice((page - 1) * pageSize, page * pageSize));
      } else {
        const { count, results } = await everyPage(url);
        expect(count, url).toBe(expected.length);
        expect(
          results.map((r) => r.npi),
          url,
        ).toEqual(expected);
      }
    }
  }, 120_000);

  it('every name strategy (merged runs, gathered and sorted, rank scan; visiting the name or the set) and a tiny cache agree', async () => {
    const db = new Database(await fixtureDb(), { readonly: true });
    try {
      const directories = [
        new ProviderDirectory(db),
        new ProviderDirectory(db, { maxMergedRuns: 0, maxSortedFirstNames: 1e9, nameFilterVisits: 'name' }),
        new ProviderDirectory(db, { maxMergedRuns: 0, maxSortedFirstNames: 0, postingsBytes: 1024, nameFilterVisits: 'set' }),
      ];
      for (const name of ['j', 'jo', 'john', 'm', 'ma', 's', 'smi', 'l', 'a', 'zz', 'obrien', 'ngu']) {
        for (const filter of [
          { name },
          { name, state: 'DE' },
          { name, specialty: 'family medicine' },
          { name, specialty: 'primary care', state: 'ny' },
        ] as Array<Record<string, string>>) {
          const expected = expectedProviders(filter);
          for (const [i, directory] of directories.entries()) {
            for (const [offset, limit] of [
              [0, 20],
              [0, 5000],
              [37, 11],
            ]) {
              const { count, ranks } = directory.search(filter, offset, limit);
              expect(count, `${JSON.stringify(filter)} directory ${i}`).toBe(expected.length);
              expect(directory.npis(ranks), `${JSON.stringify(filter)} directory ${i} ${offset}+${limit}`).toEqual(
                expected.slice(offset, offset + limit),
              );
            }
          }
        }
      }
    } finally {
      db.close();
    }
  });

  it('specialty matches NUCC classification or specialization, CMS specialty text, and aliases', async () => {
    const count = async (query: string) => (await get(`/api/v1/providers/?${query}`)).body.count as number;
    const byCode = (codes: Array<string | null>, texts: string[] = []) =>
      providers.filter((p) => codes.includes(p.primary_taxonomy) || (p.primary_taxonomy === null && texts.includes(p.primary_specialty)))
        .length;
    const internalMedicine = providers.filter(
      (p) => p.primary_taxonomy?.startsWith('207R') || (p.primary_taxonomy === null && p.primary_specialty === 'Internal Medicine'),
    ).length;
    expect(await count('specialty=internal%20medicine')).toBe(internalMedicine);
    expect(await count('specialty=Cardiovascular%20Disease')).toBe(byCode(['207RC0000X']));
    expect(await count('specialty=cardiology')).toBe(
      byCode(['207RC0000X', '207RI0011X', '207RC0001X'], ['Cardiovascular Disease (Cardiology)']),
    );
    expect(await count('specialty=family')).toBe(byCode(['363LF0000X']));
    // Pediatric nurse practitioners (363LP0200X, specialization Pediatrics) count under primary care, not the alias.
    expect(await count('specialty=pediatrics')).toBe(providers.filter((p) => p.primary_taxonomy?.startsWith('2080')).length);
    expect(await count('specialty=pediatric%20nurse%20practitioner')).toBe(byCode(['363LP0200X']));
    expect(await count('specialty=cardiology')).toBeGreaterThan(await count('specialty=cardiovascular%20disease'));
  });

  it('a specialty no provider has is a 400 naming the ones meant; every specialty of the build is accepted', async () => {
    for (const [asked, meant] of [
      ['cardiologist', 'cardiology'],
      ['pediatrcs', 'Pediatrics'],
      ['Family Nurse Practitoner', 'Family Nurse Practitioner'],
    ]) {
      const { status, body } = await get(`/api/v1/providers/?specialty=${encodeURIComponent(asked)}`);
      expect(status, asked).toBe(400);
      expect(body.error).toBe('invalid_parameter');
      expect(body.message, asked).toMatch(/^specialty must be a specialty some provider of this build has/);
      expect(body.message, asked).toMatch(new RegExp(`\\(did you mean [^)]*\\b${meant}\\b[^)]*\\?\\)$`));
    }
    expect((await get('/api/v1/providers/?specialty=nothing%20like%20this')).body.message).not.toMatch(/did you mean/);
    for (const row of api.queries.specialties.all) {
      expect((await get(`/api/v1/providers/?specialty=${encodeURIComponent(row.specialty)}&page_size=1`)).body.count, row.specialty).toBe(
        row.providers,
      );
    }
  });

  it('near= and radius=: the providers whose practice ZCTA is within the radius, with distance_miles, in every sort, against brute force', async () => {
    const db = new Database(await fixtureDb(), { readonly: true });
    const points = new Map(
      (
        db.prepare('SELECT zip_code, latitude, longitude FROM zips').all() as Array<{
          zip_code: string;
          latitude: number;
          longitude: number;
        }>
      ).map((z) => [z.zip_code, z]),
    );
    const zctaOf = new Map(
      (db.prepare('SELECT npi, zcta FROM providers').all() as Array<{ npi: string; zcta: string | null }>).map((p) => [p.npi, p.zcta]),
    );
    db.close();
    const random = seeded(20261128);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const nameOrder = new Map(expectedProviders({}).map((npi, i) => [npi, i]));
    for (let round = 0; round < 60; round++) {
      const near = pick(['10001', '19901', '02903', '20001', pick(providers).zip_code]);
      const radius = pick([0.5, 2, 10, 25, 100]);
      const sort = pick([undefined, 'distance_miles', '-distance_miles', 'last_name', '-last_name']);
      const filter: Record<string, string> = {};
      if (random() < 0.4) filter.specialty = pick(['cardiology', 'primary care', 'Registered Nurse', 'family']);
      if (random() < 0.3) filter.name = pick(['s', 'jo', 'smith', 'mary a']);
      if (random() < 0.2) filter.state = pick(['NY', 'NJ', 'DE']);
      const from = points.get(near)!;
      const milesOf = new Map<string, number>();
      for (const npi of expectedProviders(filter)) {
        const zcta = zctaOf.get(npi);
        const to = zcta ? points.get(zcta) : undefined;
        if (!to) continue;
        const miles = haversineMiles(from.longitude, from.latitude, to.longitude, to.latitude);
        if (miles <= radius) milesOf.set(npi, miles);
      }
      const zcta = (npi: string) => zctaOf.get(npi)!;
      const byName = (a: string, b: string) => nameOrder.get(a)! - nameOrder.get(b)!;
      const expected = [...milesOf.keys()].sort((a, b) => {
        if (sort === undefined || sort === 'distance_miles')
          return milesOf.get(a)! - milesOf.get(b)! || zcta(a).localeCompare(zcta(b)) || byName(a, b);
        if (sort === '-distance_miles') return milesOf.get(b)! - milesOf.get(a)! || zcta(a).localeCompare(zcta(b)) || byName(a, b);
        return sort === 'last_name' ? byName(a, b) : byName(b, a);
      });
      const url = `/api/v1/providers/?${new URLSearchParams({ ...filter, near, radius: String(radius), ...(sort && { sort }), page_size: String(pick([9, 100])) })}`;
      const { count, results } = await everyPage(url);
      expect(count, url).toBe(expected.length);
      expect(
        results.map((r) => r.npi),
        url,
      ).toEqual(expected);
      for (const r of results) expect(r.distance_miles, `${url} ${r.npi}`).toBe(Math.round(milesOf.get(r.npi)! * 100) / 100);
    }
    const refused = await get('/api/v1/providers/?sort=distance_miles');
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/give near=ZIP too/);
    expect((await get('/api/v1/providers/?near=99999')).status).toBe(404);
    const { body: plain } = await get('/api/v1/providers/?page_size=1');
    expect(Object.keys(plain.results[0])).toEqual([
      'npi',
      'first_name',
      'last_name',
      'credential',
      'gender',
      'primary_specialty',
      'telehealth',
      'city',
      'state',
      'zip_code',
    ]);
  }, 120_000);

  it('deep pages cost the same: the last page of everyone', async () => {
    const { body: first } = await get('/api/v1/providers/?page_size=100');
    const last = Math.ceil(first.count / 100);
    const { status, body } = await get(`/api/v1/providers/?page_size=100&page=${last}`);
    expect(status).toBe(200);
    expect(body.next).toBeNull();
    expect(body.results.map((r: { npi: string }) => r.npi)).toEqual(expectedProviders({}).slice((last - 1) * 100));
    expect((await get(`/api/v1/providers/?page_size=100&page=${last + 1}`)).status).toBe(404);
  });

  it('profiles: the known NPI, 404 for a valid NPI not in the build, 400 for a bad check digit', async () => {
    const { status, body } = await get(`/api/v1/providers/${KNOWN_NPI}/`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      npi: KNOWN_NPI,
      first_name: 'Jane',
      last_name: 'Doe',
      primary_specialty: 'Cardiovascular Disease Physician',
      residency: null,
    });
    expect(body.facility_names.length).toBe(2);
    const missing = await get('/api/v1/providers/1234567893/');
    expect(missing).toEqual({ status: 404, body: { error: 'not_found', message: 'No provider with NPI 1234567893', status: 404 } });
    expect((await get('/api/v1/providers/1234567890/')).status).toBe(400);
  });
});

describe('facilities/ on the fixture: every filter combination against brute force', () => {
  it('200 seeded random combinations, in every sort', async () => {
    const random = seeded(20240909);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const values = {
      type: () =>
        pick(['hospital', 'Hospitals', 'acute care hospital', 'HEALTH CENTER', "children's hospital", 'Critical Access Hospital']),
      state: () => pick(['NY', 'de', 'RI', 'CA', 'DC', 'WY']),
      emergency: () => pick(['true', 'false']),
      min_rating: () => pick(['1', '3', '4', '5']),
      search: () => pick(['mercy', 'St. Mary', 'saint', 'hopital', 'Hôpital', 'center', 'e', 'zzz', "joseph's", 'medical center']),
    };
    const names = Object.keys(values) as Array<keyof typeof values>;
    for (let round = 0; round < 200; round++) {
      const filter: Record<string, string> = {};
      for (const name of names) if (random() < 0.4) filter[name] = values[name]();
      const sort = pick(['facility_name', '-facility_name', 'facility_rating', '-facility_rating']);
      const expected = expectedFacilities(filter, sort);
      const url = `/api/v1/facilities/?${new URLSearchParams({ ...filter, sort, page_size: String(pick([9, 100])) })}`;
      const { count, results } = await everyPage(url);
      expect(count, url).toBe(expected.length);
      expect(
        results.map((r) => r.id),
        url,
      ).toEqual(expected);
    }
  }, 60_000);

  it('a facility type the build lacks is a 400 that lists the types and names the one meant', async () => {
    const { status, body } = await get('/api/v1/facilities/?type=critical%20acess%20hospital');
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_parameter');
    expect(body.message).toMatch(
      /^type must be hospital \(every hospital type\) or a facility type of this build: .*Critical Access Hospital/,
    );
    expect(body.message).toMatch(/\(did you mean Critical Access Hospital\?\)$/);
    expect((await get('/api/v1/facilities/?type=spaceport')).body.message).not.toMatch(/did you mean/);
    for (const type of ['hospital', 'Hospitals', 'CRITICAL ACCESS HOSPITAL', 'health-center']) {
      expect((await get(`/api/v1/facilities/?type=${encodeURIComponent(type)}`)).status, type).toBe(200);
    }
    // A type without its last word Hospital, or in the plural, as HIFLD and CMS write them: the same facilities.
    const ids = async (type: string) =>
      (await get(`/api/v1/facilities/?type=${encodeURIComponent(type)}&page_size=100`)).body.results.map((f: { id: number }) => f.id);
    const critical = await ids('Critical Access Hospital');
    expect(critical.length).toBeGreaterThan(0);
    for (const type of ['critical access', 'Critical Access Hospitals']) expect(await ids(type), type).toEqual(critical);
    expect((await get('/api/v1/facilities/?type=critical')).status).toBe(400);
  });

  it('facility name words for autocomplete: names starting with the text first, then later words, against brute force', () => {
    const index = api.queries.facilities.index;
    const keyed = facilities
      .map((f) => ({ id: f.id, key: searchKey(f.facility_name) }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id - b.id));
    for (const key of [
      'm',
      'me',
      'mercy',
      'st',
      'st m',
      'saint luke',
      'hospital',
      'center',
      'health center',
      'x',
      'new york',
      'hopital s',
      'zzz',
    ]) {
      const starts = keyed.filter((f) => f.key.startsWith(key)).map((f) => f.id);
      const words = keyed.filter((f) => !f.key.startsWith(key) && f.key.includes(` ${key}`)).map((f) => f.id);
      expect(index.byWordPrefix(key, 10_000), key).toEqual([...starts, ...words]);
      expect(index.byWordPrefix(key, 3), key).toEqual([...starts, ...words].slice(0, 3));
    }
  });

  it('hospital rankings: rated hospitals only, in the documented order, ranks 1..n', async () => {
    for (const url of ['/api/v1/rankings/hospitals/', '/api/v1/rankings/hospitals/?state=ny']) {
      const { body } = await get(url);
      const rows = await Promise.all(body.map(async (entry: { id: number }) => (await get(`/api/v1/facilities/${entry.id}/`)).body));
      expect(body.map((e: { rank: number }) => e.rank)).toEqual(body.map((_: unknown, i: number) => i + 1));
      expect(rows.every((r) => r.facility_rating !== null && r.facility_type !== 'Health Center')).toBe(true);
      for (let i = 1; i < rows.length; i++) {
        const [a, b] = [rows[i - 1], rows[i]];
        const order =
          b.facility_rating - a.facility_rating ||
          Number(b.emergency_services) - Number(a.emergency_services) ||
          (b.staffed_beds ?? -1) - (a.staffed_beds ?? -1) ||
          (searchKey(a.facility_name) < searchKey(b.facility_name)
            ? -1
            : searchKey(a.facility_name) > searchKey(b.facility_name)
              ? 1
              : 0) ||
          a.id - b.id;
        expect(order, `${a.id} before ${b.id}`).toBeLessThan(0);
      }
      const rated = facilities.filter(
        (f) => f.facility_rating !== null && f.facility_type !== 'Health Center' && (!url.includes('state') || f.state_code === 'NY'),
      );
      expect(body.length).toBe(rated.length);
    }
  });
});

describe('autocomplete/', () => {
  it('never more than 10 suggestions and never an error on any Unicode text (seeded fuzz)', async () => {
    const random = seeded(20241010);
    // Text pieces (percent-encoded when sent) and raw escapes, some of them invalid UTF-8: a lone surrogate, a
    // cut 4-byte sequence, an overlong slash, a byte that never occurs.
    const text = [
      'a',
      'new',
      ' ',
      'yo',
      '1',
      '100',
      '10001',
      '%',
      '_',
      "'",
      '"',
      '`',
      '\\',
      '😀',
      '👩‍⚕️',
      '\u200f',
      'שלום',
      'مرحبا',
      'e\u0301',
      '\u0301',
      'ß',
      'İ',
      '\u0000',
      '\t',
      'ﬁ',
      '+',
      '&',
      '#',
      '*',
      'smi',
      'jo',
      'mercy',
      'ñ',
      '\uffff',
      '%25',
      'x'.repeat(40),
    ];
    const escapes = ['%ED%A0%80', '%F0%9F', '%C0%AF', '%FF', '%zz', '%'];
    for (let round = 0; round < 400; round++) {
      let encoded = '';
      for (let n = 1 + Math.floor(random() * 6); n > 0; n--) {
        encoded +=
          random() < 0.2 ? escapes[Math.floor(random() * escapes.length)] : encodeURIComponent(text[Math.floor(random() * text.length)]);
      }
      const url = `/api/v1/autocomplete/?q=${encoded}`;
      const { status, body } = await get(url);
      const q = new URLSearchParams(`q=${encoded}`).get('q')!.trim();
      if (q === '' || [...q].length > 100) {
        expect(status, url).toBe(400);
        expect(body.error).toBe('invalid_parameter');
      } else {
        expect(status, url).toBe(200);
        expect(Array.isArray(body), url).toBe(true);
        expect(body.length, url).toBeLessThanOrEqual(10);
        for (const s of body) expect(Object.keys(s)).toEqual(['type', 'label', 'url']);
      }
    }
  }, 60_000);

  it('ranks an exact ZIP first, then cities by population, providers and facilities; urls answer 200', async () => {
    const { body: exact } = await get('/api/v1/autocomplete/?q=10001');
    expect(exact[0]).toEqual({ type: 'zip', label: '10001 - New York, NY', url: '/api/v1/health-scores/10001/' });
    const { body: mixed } = await get('/api/v1/autocomplete/?q=smi');
    const types = mixed.map((s: { type: string }) => s.type);
    expect(types).toEqual(
      [...types].sort(
        (a: string, b: string) => ['zip', 'city', 'provider', 'facility'].indexOf(a) - ['zip', 'city', 'provider', 'facility'].indexOf(b),
      ),
    );
    for (const suggestion of [
      ...exact,
      ...mixed,
      ...(await get('/api/v1/autocomplete/?q=wil')).body,
      ...(await get('/api/v1/autocomplete/?q=mercy')).body,
    ]) {
      expect((await get(suggestion.url)).status, suggestion.url).toBe(200);
    }
    const { body: full } = await get('/api/v1/autocomplete/?q=jane%20do');
    expect(full).toContainEqual(expect.objectContaining({ type: 'provider', url: `/api/v1/providers/${KNOWN_NPI}/` }));
    const { body: reversed } = await get('/api/v1/autocomplete/?q=doe%20ja');
    expect(reversed).toContainEqual(expect.objectContaining({ url: `/api/v1/providers/${KNOWN_NPI}/` }));
  });

  it('q is required, 1 to 100 characters', async () => {
    for (const url of [
      '/api/v1/autocomplete/',
      '/api/v1/autocomplete/?q=',
      '/api/v1/autocomplete/?q=%20%20',
      `/api/v1/autocomplete/?q=${'x'.repeat(101)}`,
    ]) {
      const { status, body } = await get(url);
      expect(status, url).toBe(400);
      expect(body.message).toMatch(/^q must be search text of 1 to 100 characters/);
    }
    expect((await get(`/api/v1/autocomplete/?q=${'é'.repeat(100)}`)).status).toBe(200);
  });
});
