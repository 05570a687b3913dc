import { ROUTES } from '../../src/api/index.ts';

/**
 * A working request per route (and a few variants), on the fixture. A route without an entry fails the
 * tests that use this table, so every new endpoint gets an example.
 */
export const ROUTE_EXAMPLES: Record<string, string[]> = {
  '/api/v1/': ['/api/v1/'],
  '/api/v1/health-scores/': [
    '/api/v1/health-scores/',
    '/api/v1/health-scores/?state=RI&min_score=50&page=2&page_size=10',
    '/api/v1/health-scores/?city=providence&score_type=7',
  ],
  '/api/v1/health-scores/geojson/': ['/api/v1/health-scores/geojson/', '/api/v1/health-scores/geojson/?state=de&min_score=70'],
  '/api/v1/health-scores/:zip/': ['/api/v1/health-scores/02801/', '/api/v1/health-scores/10001/'],
  '/api/v1/health-scores/:zip/all-scores/': ['/api/v1/health-scores/19901/all-scores/'],
  '/api/v1/health-scores/:zip/nearby/': ['/api/v1/health-scores/20001/nearby/', '/api/v1/health-scores/02903/nearby/?radius=25&limit=50'],
  '/api/v1/score-types/': ['/api/v1/score-types/'],
  '/api/v1/states/': ['/api/v1/states/'],
  '/api/v1/meta/': ['/api/v1/meta/'],
  '/api/v1/health-scores/:zip/census/': ['/api/v1/health-scores/02801/census/', '/api/v1/health-scores/10001/census/'],
  '/api/v1/tvi/:zip/': ['/api/v1/tvi/10001/', '/api/v1/tvi/99723/'],
  '/api/v1/tvi/top-vulnerable/': ['/api/v1/tvi/top-vulnerable/', '/api/v1/tvi/top-vulnerable/?state=ri&tier=high&page=2&page_size=5'],
  '/api/v1/tvi/rankings/': ['/api/v1/tvi/rankings/', '/api/v1/tvi/rankings/?limit=3'],
  '/api/v1/widget-score/:zip/': ['/api/v1/widget-score/10001/', '/api/v1/widget-score/99723/'],
  '/api/v1/compare/': ['/api/v1/compare/?zips=02801,10001', '/api/v1/compare/?zips=94110,10001,20001&score_type=copd'],
  '/api/v1/blog/': ['/api/v1/blog/', '/api/v1/blog/?page=2&page_size=1'],
  '/api/v1/blog/:slug/': ['/api/v1/blog/how-the-healthcare-access-score-works/'],
  '/api/v1/exports/health-scores/': [
    '/api/v1/exports/health-scores/',
    '/api/v1/exports/health-scores/?format=ndjson&state=RI&score_type=asthma',
  ],
  '/api/v1/exports/providers/': ['/api/v1/exports/providers/', '/api/v1/exports/providers/?format=NDJSON&state=de'],
  '/api/v1/exports/facilities/': ['/api/v1/exports/facilities/', '/api/v1/exports/facilities/?format=ndjson'],
  '/api/v1/openapi.json': ['/api/v1/openapi.json'],
  '/api/v1/providers/': [
    '/api/v1/providers/',
    '/api/v1/providers/?specialty=cardiology&state=ny&page_size=5',
    '/api/v1/providers/?name=smi&city=wilmington&page=2&page_size=3',
    '/api/v1/providers/?zip=19901&specialty=Family%20Medicine',
  ],
  '/api/v1/providers/:npi/': ['/api/v1/providers/1679576722/'],
  '/api/v1/facilities/': [
    '/api/v1/facilities/',
    '/api/v1/facilities/?type=hospital&state=NY&emergency=true&min_rating=4',
    '/api/v1/facilities/?search=mercy&page_size=5',
  ],
  '/api/v1/facilities/:id/': ['/api/v1/facilities/1001/', '/api/v1/facilities/4/'],
  '/api/v1/autocomplete/': ['/api/v1/autocomplete/?q=new%20yo', '/api/v1/autocomplete/?q=10001', '/api/v1/autocomplete/?q=%F0%9F%98%80'],
  '/api/v1/rankings/states/': ['/api/v1/rankings/states/'],
  '/api/v1/rankings/hospitals/': ['/api/v1/rankings/hospitals/', '/api/v1/rankings/hospitals/?state=de'],
};

/** Routes whose 200 is not JSON: their content types by `format` (bulk exports; errors are still JSON). */
export const EXPORT_TYPES: Record<string, string> = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson' };

/** Values each parameter must reject with a 400; a parameter missing here fails the route walk. */
export const BAD_VALUES: Record<string, string[]> = {
  zip: ['1234', '123456', 'abcde', '1234%20', '%zz'],
  state: ['N', 'NYC', '12', ''],
  city: ['', '%20%20', 'x'.repeat(101)],
  min_score: ['-1', '101', '5.5', 'abc', ''],
  max_score: ['-1', '101', '5.5', 'abc', ''],
  score_type: ['0', '12', 'nonsense', ''],
  page: ['0', '-1', '1.5', 'x', ''],
  page_size: ['0', '101', '500', 'x', ''],
  radius: ['0', '-5', '100.5', '1e3', 'abc', ''],
  limit: ['0', '51', '2.5', 'x', ''],
  tier: ['EXTREME', 'high%20', '1', ''],
  zips: [
    '10001',
    '10001,10001',
    '1000,10001',
    '10001,,10002',
    '10001;10002',
    '',
    Array.from({ length: 11 }, (_, i) => String(10001 + i)).join(','),
  ],
  format: ['xml', 'json', 'csv%20', ''],
  slug: ['Upper-Case', 'under_score', '-leading', 'trailing-', 'two--hyphens', 'sp%20ace'],
  npi: ['123456789', '12345678901', 'abcdefghij', '1234567890', '3679576722', '%20679576722'],
  id: ['0', '-1', '1.5', 'abc', '99999999999'],
  specialty: ['', '%20%20', '%21%21', 'x'.repeat(101)],
  name: ['', '%20', '%27%27', 'x'.repeat(101)],
  type: ['', '%20', 'x'.repeat(101)],
  emergency: ['yes', '2', 'TRUE1', ''],
  min_rating: ['0', '6', '4.5', 'x', ''],
  search: ['', '%20%20', '%F0%9F%98%80', 'x'.repeat(101)],
  q: ['', '%20%20', 'x'.repeat(101)],
  min_population: ['-1', '1.5', 'abc', ''],
  near: ['1234', 'abcde', '1000%20', ''],
  sort: ['', 'nonsense', '-', '--zip_code', 'zip_code,-zip_code'],
};

/** Bad values that differ on one route (a parameter name with other bounds there), by route path and name. */
export const ROUTE_BAD_VALUES: Record<string, Record<string, string[]>> = {
  '/api/v1/tvi/rankings/': { limit: ['0', '1001', '2.5', 'x', ''] },
};

/** The values each parameter of a route must reject. */
export function badValuesOf(routePath: string, name: string): string[] | undefined {
  return ROUTE_BAD_VALUES[routePath]?.[name] ?? BAD_VALUES[name];
}

/** The first example of a route, with its path parameters filled in. */
export function exampleOf(path: string): string {
  const examples = ROUTE_EXAMPLES[path];
  if (!examples) throw new Error(`no example request for ${path}: add one to test/helpers/examples.ts`);
  return examples[0];
}

export { ROUTES };
