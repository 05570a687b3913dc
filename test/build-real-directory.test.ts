import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchKey } from '../core/search-key.ts';
import { Api } from '../src/api/index.ts';
import { needsSharedData } from './helpers/shared-data.ts';
import { cachedBuild } from './helpers/real-build.ts';

const MANIFEST = path.resolve(import.meta.dirname, '../raw/manifests/shared-data.json');
const haveData = needsSharedData('the real-data directory test');

/** The first individual of the real NPPES extract (npidata_first10000.csv.gz): DAVID WIEBE, M.D., Kearney, NE. */
const KNOWN_NPI = '1679576722';
/** Mount Sinai Hospital, New York: CMS certification number 330024. */
const KNOWN_CCN = '330024';

describe.skipIf(!haveData)('providers, facilities, autocomplete and rankings over the real-data build', () => {
  let api: Api;
  let db: Database.Database;
  const get = async (url: string) => {
    const response = await api.respond({ method: 'GET', url });
    return { status: response.status, body: JSON.parse(response.body.toString('utf8')) };
  };
  const sql = <T>(query: string, ...args: unknown[]) =>
    db
      .prepare(query)
      .pluck()
      .get(...args) as T;

  beforeAll(async () => {
    const { out } = await cachedBuild(MANIFEST);
    api = Api.open(out);
    db = new Database(out, { readonly: true });
  }, 900_000);
  afterAll(() => {
    api?.retire();
    db?.close();
  });

  it('keeps the partial NPPES extract to naming clinicians: the counts are the supply, the extract replaces none', () => {
    const coverage = JSON.parse(db.prepare("SELECT value FROM meta WHERE key = 'provider_coverage'").pluck().get() as string);
    expect(coverage.status).toBe('measured');
    // The weekly extract holds 3% of the country's primary care clinicians: reported as a partial roster ...
    expect(coverage.shortfalls.primary_care).toMatch(/the rosters count 3% of the primary care clinicians expected nationally/);
    // ... while the county counts carry primary care, behavioral health and dentistry, and the OB/GYN roster its own.
    for (const category of ['primary_care', 'behavioral_health', 'dentistry'])
      expect(coverage.categories[category].basis, category).toBe('count');
    expect(coverage.categories.obgyn.basis).toBe('roster');
    expect(coverage.national.primary_care.share).toBeGreaterThan(0.98);
    expect(coverage.national.primary_care.share).toBeLessThan(1.02);
    expect(db.prepare('SELECT COUNT(*) FROM health_scores WHERE provider_score IS NOT NULL').pluck().get()).toBeGreaterThan(300_000);
  });

  it('finds a known NPPES clinician by NPI, by name and by specialty', async () => {
    const { status, body } = await get(`/api/v1/providers/${KNOWN_NPI}/`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ npi: KNOWN_NPI, first_name: 'David', last_name: 'Wiebe', residency: null });
    const byName = await get('/api/v1/providers/?name=wieb&state=ne&page_size=100');
    expect(byName.body.results.map((r: { npi: string }) => r.npi)).toContain(KNOWN_NPI);
    const bySpecialty = await get(
      `/api/v1/providers/?specialty=${encodeURIComponent(body.primary_specialty)}&zip=${sql<string>('SELECT zip_code FROM providers WHERE npi = ?', KNOWN_NPI)}&page_size=100`,
    );
    expect(bySpecialty.body.results.map((r: { npi: string }) => r.npi)).toContain(KNOWN_NPI);
  });

  it('counts match SQL over the providers table: everyone, a state, a ZIP, a taxonomy code, a name prefix', async () => {
    const count = async (query: string) => (await get(`/api/v1/providers/?${query}`)).body.count as number;
    expect(await count('')).toBe(sql<number>('SELECT COUNT(*) FROM providers'));
    expect(await count('state=ny')).toBe(sql<number>("SELECT COUNT(*) FROM providers WHERE state = 'NY'"));
    expect(await count('zip=10016')).toBe(sql<number>("SELECT COUNT(*) FROM providers WHERE zip_code = '10016'"));
    expect(await count('specialty=cardiovascular%20disease')).toBe(
      sql<number>(
        "SELECT COUNT(*) FROM providers WHERE primary_taxonomy = '207RC0000X' OR (primary_taxonomy IS NULL AND primary_specialty IN ('Cardiovascular Disease'))",
      ),
    );
    const internal = sql<number>(
      "SELECT COUNT(*) FROM providers WHERE primary_taxonomy LIKE '207R%' OR (primary_taxonomy IS NULL AND primary_specialty = 'Internal Medicine')",
    );
    expect(await count('specialty=internal%20medicine')).toBe(internal);
    const names = db.prepare('SELECT first_name, last_name, state FROM providers').raw().all() as Array<[string, string, string]>;
    const smi = names.filter(
      ([first, last, state]) => state === 'CA' && (searchKey(first).startsWith('smi') || searchKey(last).startsWith('smi')),
    ).length;
    expect(await count('name=SMI&state=CA')).toBe(smi);
    // The alias: the cardiology category's codes and clinicians known only from Doctors and Clinicians by their
    // CMS specialty (in both spellings CMS has used). Not NUCC's "Cardiology" specialization of pharmacists
    // (1835C0206X): they answer to their display name, Cardiology Pharmacist.
    const cardiology = sql<number>(`SELECT COUNT(*) FROM providers WHERE primary_taxonomy IN ('207RC0000X', '207RI0011X', '207RC0001X')
      OR (primary_taxonomy IS NULL AND lower(primary_specialty) IN ('cardiovascular disease (cardiology)', 'cardiovascular disease cardiology', 'interventional cardiology', 'cardiology'))`);
    expect(await count('specialty=cardiology')).toBe(cardiology);
    const pharmacists = sql<number>("SELECT COUNT(*) FROM providers WHERE primary_taxonomy = '1835C0206X'");
    expect(pharmacists, 'the real sample has Cardiology pharmacists').toBeGreaterThan(0);
    expect(await count('specialty=cardiology%20pharmacist')).toBe(pharmacists);
  });

  it('finds a known CMS hospital by search, type and state, and ranks it among rated hospitals', async () => {
    const id = sql<number>('SELECT id FROM facilities WHERE ccn = ?', KNOWN_CCN);
    const detail = (await get(`/api/v1/facilities/${id}/`)).body;
    expect(detail).toMatchObject({
      facility_name: 'Mount Sinai Hospital',
      facility_type: 'Acute Care Hospital',
      state_code: 'NY',
      emergency_services: true,
    });
    expect(detail.staffed_beds).toBeGreaterThan(500);
    const found = await get('/api/v1/facilities/?search=mount%20sinai&type=hospital&state=ny&page_size=100');
    expect(found.body.results.map((f: { id: number }) => f.id)).toContain(id);
    const hospitals = await get('/api/v1/facilities/?type=hospital&state=NY');
    expect(hospitals.body.count).toBe(
      sql<number>("SELECT COUNT(*) FROM facilities WHERE state_code = 'NY' AND facility_type <> 'Health Center'"),
    );
    const ranking = (await get('/api/v1/rankings/hospitals/?state=NY')).body as Array<{ id: number; facility_rating: number }>;
    expect(ranking.length).toBe(
      sql<number>(
        "SELECT COUNT(*) FROM facilities WHERE state_code = 'NY' AND facility_type <> 'Health Center' AND facility_rating IS NOT NULL",
      ),
    );
    expect(ranking.find((r) => r.id === id)?.facility_rating).toBe(detail.facility_rating);
    expect(ranking.map((r) => r.facility_rating)).toEqual(ranking.map((r) => r.facility_rating).sort((a, b) => b - a));
  });

  it('provider_count reconciles with the affiliations clinicians list', async () => {
    // Every affiliated clinician counted by a facility lists its name (Doctors and Clinicians) in the same state.
    const counted = sql<number>('SELECT SUM(provider_count) FROM facilities');
    const listed = sql<number>('SELECT COUNT(*) FROM providers p, json_each(p.facility_names) f');
    expect(counted).toBeGreaterThan(0);
    expect(counted).toBeLessThanOrEqual(listed);
  });

  it('autocomplete: an exact ZIP first, New York first among "new yo" cities, at most 10 everywhere', async () => {
    const zip = (await get('/api/v1/autocomplete/?q=10001')).body;
    expect(zip[0]).toEqual({ type: 'zip', label: '10001 - New York, NY', url: '/api/v1/health-scores/10001/' });
    const city = (await get('/api/v1/autocomplete/?q=new%20yo')).body;
    expect(city[0]).toMatchObject({ type: 'city', label: 'New York, NY' });
    for (const q of ['a', 'sa', 'mount', 'david w', 'wiebe', '9', 'st. mary', 'ñ', '😀']) {
      const { status, body } = await get(`/api/v1/autocomplete/?q=${encodeURIComponent(q)}`);
      expect(status, q).toBe(200);
      expect(body.length, q).toBeLessThanOrEqual(10);
    }
  });

  it('state rankings: every state, rank 1 has the highest average', async () => {
    const states = (await get('/api/v1/rankings/states/')).body as Array<{ rank: number; avg_score: number; state_code: string }>;
    expect(states.length).toBe(sql<number>('SELECT COUNT(*) FROM states'));
    expect(states[0].avg_score).toBe(sql<number>('SELECT MAX(avg_healthscore) FROM states'));
    expect(states.map((s) => s.rank)).toEqual(states.map((_, i) => i + 1));
  });
});
