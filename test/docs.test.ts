import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, ROUTES } from '../src/api/index.ts';
import { fixtureDb } from './helpers/fixture-db.ts';

const DOCS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/api.md');
const docs = readFileSync(DOCS, 'utf8');

/** The JSON text of `value` laid out the way the docs show `shown`: one line, one array item per line, or indented. */
function layoutLike(shown: string, value: unknown): string {
  if (!shown.includes('\n')) return JSON.stringify(value);
  const lines = shown.split('\n');
  const itemPerLine =
    Array.isArray(value) &&
    lines[0] === '[' &&
    lines.at(-1) === ']' &&
    lines.slice(1, -1).every((line) => /^ {2}[{[]/.test(line) && !line.trimEnd().endsWith('[') && !line.trimEnd().endsWith('{'));
  // One line per item, spaced as people write it (JSON text holds no raw line break, so every break is structural).
  const line = (item: unknown) =>
    JSON.stringify(item, null, 1)
      .replace(/([{[])\n\s*/g, '$1')
      .replace(/\n\s*([}\]])/g, '$1')
      .replace(/,\n\s*/g, ', ');
  if (itemPerLine) return `[\n${(value as unknown[]).map((item) => `  ${line(item)}`).join(',\n')}\n]`;
  return JSON.stringify(value, null, 2);
}

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

  describe('its `hcas get` examples answer exactly as shown (UPDATE_DOCS=1 rewrites them from the fixture)', () => {
    let api: Api;
    const rewrites: Array<[string, string]> = [];
    beforeAll(async () => {
      api = Api.open(await fixtureDb());
    });
    afterAll(() => {
      api.retire();
      if (process.env.UPDATE_DOCS && rewrites.length) {
        let text = readFileSync(DOCS, 'utf8');
        for (const [from, to] of rewrites) text = text.replace(from, to);
        writeFileSync(DOCS, text);
      }
    });

    // `$ hcas get PATH` followed by a fenced JSON block, or by the body on the next line.
    // biome-ignore lint/correctness/noEmptyCharacterClassInRegex: `[^]` is any character, line breaks included.
    const examples = [...docs.matchAll(/\$ hcas get '?([^'\s]+)'?\n(?:```\n```json\n)?([[{][^]*?)\n(?:```|\$|$)/g)];
    it('finds the examples', () => expect(examples.length).toBeGreaterThan(10));
    for (const [, url, shown] of examples) {
      it(url, async () => {
        const response = await api.respond({ method: 'GET', url: url.startsWith('/') ? url : `/api/v1/${url}` });
        const documented = JSON.parse(shown);
        const actual = JSON.parse(response.body.toString('utf8'));
        if (process.env.UPDATE_DOCS && JSON.stringify(actual) !== JSON.stringify(documented))
          rewrites.push([shown, layoutLike(shown, actual)]);
        else expect(actual, 'UPDATE_DOCS=1 npx vitest run test/docs.test.ts rewrites the example').toEqual(documented);
      });
    }
  });
});
