import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, API_BASE, ROUTES } from '../src/api/index.ts';
import type { ApiResponse } from '../src/http/response.ts';
import { Router } from '../src/http/router.ts';
import { ROUTE_EXAMPLES } from './helpers/examples.ts';
import { tempDir } from './helpers/files.ts';
import { fixtureDb } from './helpers/fixture-db.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const addFormats = addFormatsModule.default;
type Json = Record<string, any>;

let api: Api;
let document: Json;
beforeAll(async () => {
  api = Api.open(await fixtureDb());
  document = JSON.parse((await api.respond({ method: 'GET', url: `${API_BASE}openapi.json` })).body.toString('utf8'));
});
afterAll(() => api.retire());

/** The body of a response, streamed or not. */
async function bodyText(response: ApiResponse): Promise<string> {
  if (!response.stream) return response.body.toString('utf8');
  let text = '';
  for await (const chunk of response.stream) text += chunk;
  return text;
}

/** Validators of the document's schemas: its `#/components/schemas/X` references point into one Ajv schema. */
function validators(doc: Json) {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', 'components#/$defs/') : rewrite(v),
      ]),
    );
  };
  ajv.addSchema({ $id: 'components', $defs: rewrite(doc.components.schemas) as Json });
  const compiled = new Map<unknown, ValidateFunction>();
  return (schema: Json): ValidateFunction => {
    let validate = compiled.get(schema);
    if (!validate) {
      validate = ajv.compile(rewrite(schema) as Json);
      compiled.set(schema, validate);
    }
    return validate;
  };
}

describe('openapi.json', () => {
  it('is OpenAPI 3.1 with one GET operation per route of the route table, and nothing else', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: '/api/v1', description: expect.any(String) }]);
    const documented = Object.keys(document.paths).sort();
    const routed = ROUTES.map((r) => `/${r.path.slice(API_BASE.length)}`.replace(/:(\w+)/g, '{$1}')).sort();
    expect(documented).toEqual(routed);
    for (const item of Object.values(document.paths) as Json[]) expect(Object.keys(item)).toEqual(['get']);
  });

  it('every route declares its 200 body, and every parameter its schema', () => {
    for (const route of ROUTES) {
      expect(route.response, `add response: to ${route.path} in its module in src/api/`).toBeDefined();
      for (const [name, spec] of [...Object.entries(route.pathParams), ...Object.entries(route.query)]) {
        expect(spec.schema, `give parameter ${name} of ${route.path} a schema (its spec in src/api/)`).toBeDefined();
      }
    }
  });

  it('lists each parameter with its constraints, required where it has no default', () => {
    const list = document.paths['/health-scores/'].get.parameters as Json[];
    expect(list.find((p) => p.name === 'page_size')).toMatchObject({
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    });
    expect(document.paths['/health-scores/{zip}/'].get.parameters[0]).toMatchObject({
      name: 'zip',
      in: 'path',
      required: true,
      schema: { pattern: '^[0-9]{5}(-[0-9]{4})?$' },
    });
    expect(document.paths['/compare/'].get.parameters[0]).toMatchObject({ name: 'zips', required: true });
    expect(document.paths['/tvi/top-vulnerable/'].get.parameters.find((p: Json) => p.name === 'tier').schema.enum).toEqual([
      'CRITICAL',
      'HIGH',
      'MODERATE',
      'LOW',
      'MINIMAL',
    ]);
  });

  it("documents the headers: ETag, the rate-limit headers, the widget's caching, the exports' attachment", () => {
    const ok = document.paths['/tvi/{zip}/'].get.responses['200'];
    expect(Object.keys(ok.headers)).toEqual(
      expect.arrayContaining(['ETag', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']),
    );
    expect(document.paths['/tvi/{zip}/'].get.responses['429'].headers['Retry-After']).toBeDefined();
    expect(document.paths['/widget-score/{zip}/'].get.responses['200'].headers['Cache-Control'].schema.const).toBe('public, max-age=86400');
    const exported = document.paths['/exports/providers/'].get.responses['200'];
    expect(Object.keys(exported.content)).toEqual(['text/csv; charset=utf-8', 'application/x-ndjson']);
    expect(exported.headers['Content-Disposition']).toBeDefined();
  });

  it('passes the Redocly linter (recommended rules), offline', async () => {
    const file = path.join(tempDir(), 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const cli = path.join(root, 'node_modules/@redocly/cli/bin/cli.js');
    // Telemetry off: with it on, the CLI looks up its telemetry host; lint itself needs no network.
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    const result = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        process.execPath,
        [cli, 'lint', file, '--config', path.join(root, 'redocly.yaml'), '--format', 'stylish'],
        { cwd: root, env, timeout: 60_000 },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
      );
    });
    // Problems are listed as `LINE:COLUMN  severity  rule  message`; warnings count as failures here too.
    expect(result.output).not.toMatch(/^\s*\d+:\d+\s+(warning|error)\s/m);
    expect(result.output).not.toMatch(/You have \d+ warnings?/);
    expect(result.output).toContain('Your API description is valid');
    expect(result.code, result.output).toBe(0);
  }, 60_000);
});

describe('real answers validate against the document', () => {
  const router = new Router(ROUTES);
  /** Every request of the golden files and of the route examples. */
  const goldenRequests = readdirSync(path.join(root, 'test/golden'))
    .filter((name) => name.endsWith('.json') && !name.endsWith('.actual.json'))
    .map((name) =>
      (JSON.parse(readFileSync(path.join(root, 'test/golden', name), 'utf8')) as { request: string }).request.replace(/^GET /, ''),
    );
  const requests = [...new Set([...goldenRequests, ...Object.values(ROUTE_EXAMPLES).flat()])];

  it('has requests to check', () => expect(requests.length).toBeGreaterThan(60));

  it('every status and body (golden cases and route examples)', async () => {
    const validatorOf = validators(document);
    const errors = validatorOf(document.components.schemas.Error);
    for (const url of requests) {
      const response = await api.respond({ method: 'GET', url });
      const text = await bodyText(response);
      const pathname = new URL(url, 'http://x').pathname;
      const match = router.match(pathname);
      if (!match) {
        expect(errors(JSON.parse(text)), `${url}: ${JSON.stringify(errors.errors)}`).toBe(true);
        continue;
      }
      const operation = document.paths[`/${match.route.path.slice(API_BASE.length)}`.replace(/:(\w+)/g, '{$1}')].get;
      const documented = operation.responses[String(response.status)];
      expect(documented, `${url}: status ${response.status} is not documented`).toBeDefined();
      const type = String(response.headers['Content-Type']);
      const media = documented.content[type] ?? documented.content[type.split(';')[0]];
      expect(media, `${url}: ${type} is not documented for ${response.status}`).toBeDefined();
      if (type.startsWith('application/json')) {
        const validate = validatorOf(media.schema);
        expect(validate(JSON.parse(text)), `${url}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
    }
  }, 60_000);

  it('each NDJSON line of every export matches its row schema, and each CSV header lists its columns', async () => {
    const validatorOf = validators(document);
    for (const [name, schema] of [
      ['health-scores', 'HealthScoreExportRow'],
      ['providers', 'ProviderExportRow'],
      ['facilities', 'FacilityExportRow'],
    ]) {
      const rowSchema = document.components.schemas[schema];
      const validate = validatorOf({ $ref: `#/components/schemas/${schema}` });
      const lines = (await bodyText(await api.respond({ method: 'GET', url: `${API_BASE}exports/${name}/?format=ndjson` })))
        .trimEnd()
        .split('\n');
      expect(lines.length).toBeGreaterThan(5);
      for (const line of lines) expect(validate(JSON.parse(line)), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      const csv = await bodyText(await api.respond({ method: 'GET', url: `${API_BASE}exports/${name}/` }));
      expect(csv.slice(0, csv.indexOf('\r\n')).split(',')).toEqual(Object.keys(rowSchema.properties));
    }
  });
});
