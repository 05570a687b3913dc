import { ROUTES } from '../../src/http/routes.ts';

/**
 * A working request per route (and a few variants), on the fixture. A route without an entry fails the
 * tests that use this table, so every new endpoint gets an example.
 */
export const ROUTE_EXAMPLES: Record<string, string[]> = {
  '/api/v1/health-scores/': ['/api/v1/health-scores/', '/api/v1/health-scores/?state=RI&min_score=50&page=2&page_size=10', '/api/v1/health-scores/?city=providence&score_type=7'],
  '/api/v1/health-scores/geojson/': ['/api/v1/health-scores/geojson/', '/api/v1/health-scores/geojson/?state=de&min_score=70'],
  '/api/v1/health-scores/:zip/': ['/api/v1/health-scores/02801/', '/api/v1/health-scores/10001/'],
  '/api/v1/health-scores/:zip/all-scores/': ['/api/v1/health-scores/19901/all-scores/'],
  '/api/v1/health-scores/:zip/nearby/': ['/api/v1/health-scores/20001/nearby/', '/api/v1/health-scores/02903/nearby/?radius=25&limit=50'],
  '/api/v1/score-types/': ['/api/v1/score-types/'],
  '/api/v1/states/': ['/api/v1/states/'],
  '/api/v1/meta/': ['/api/v1/meta/'],
};

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
};

/** The first example of a route, with its path parameters filled in. */
export function exampleOf(path: string): string {
  const examples = ROUTE_EXAMPLES[path];
  if (!examples) throw new Error(`no example request for ${path}: add one to test/helpers/examples.ts`);
  return examples[0];
}

export { ROUTES };
