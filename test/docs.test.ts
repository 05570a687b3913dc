import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, ROUTES } from '../src/api/index.ts';
import { fixtureDb } from './helpers/fixture-db.ts';

const docs = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/api.md'), 'utf8');

/** The text of the docs section whose heading is `### GET PATH`. */
function section(routePath: string): string | undefined {
  const heading = `### GET ${routePath.replace(/:(\w+)/g, '{$1}')}\n`;
  const start = docs.indexOf(heading);
  if (start < 0) return undefined;
  const end = docs.indexOf('\n### ', start + heading.length);
  return docs.slice(start, end < 0 ? undefined : end);
}

describe('docs/api.md', () => {
  for (const route of ROUTES) {
    it(`documents ${route.path} and each of its parameters`, () => {
      const text = section(route.path);
      expect(text, `add a "### GET ${route.path}" section to docs/api.md`).toBeDefined();
      for (const name of Object.keys(route.query)) expect(text, `document ${name}`).toContain(`\`${name}\``);
    });
  }

  describe('its `hcas get` examples answer as shown', () => {
    let api: Api;
    beforeAll(async () => {
      api = Api.open(await fixtureDb());
    });
    afterAll(() => api.retire());

    // `$ hcas get PATH` followed by a fenced JSON block, or by the body on the next line.
    // biome-ignore lint/correctness/noEmptyCharacterClassInRegex: `[^]` is any character, line breaks included.
    const examples = [...docs.matchAll(/\$ hcas get '?([^'\s]+)'?\n(?:```\n```json\n)?([[{][^]*?)\n(?:```|\$|$)/g)];
    it('finds the examples', () => expect(examples.length).toBeGreaterThan(10));
    for (const [, url, shown] of examples) {
      it(url, async () => {
        const response = await api.respond({ method: 'GET', url: url.startsWith('/') ? url : `/api/v1/${url}` });
        const documented = JSON.parse(shown);
        const actual = JSON.parse(response.body.toString('utf8'));
        if (documented.error) expect(actual).toEqual(documented);
        else expect(response.status).toBe(200);
      });
    }
  });
});
