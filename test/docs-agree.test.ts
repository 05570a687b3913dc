import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../src/api/index.ts';
import { hcas, ROOT } from './helpers/cli.ts';
import { fixtureDb } from './helpers/fixture-db.ts';

/**
 * What a user reads must agree and point somewhere they can go (issue 28, point 9): the project's own docs,
 * help texts, plan files and OpenAPI document carry what they rely on, and never send a user to the
 * specification files or the data folder the maintainers keep outside the package.
 */
const USER_DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  'raw/national/README.md',
  'producers/sample/README.md',
  'dist-api/README.md',
  'deploy/README.md',
  'config/plans/a.json',
  'config/plans/b.json',
];
/** Names of what a user of the package does not have. */
const ELSEWHERE = /decisions\.md|interface-specification|shared\/spec|\.\.\/shared/;

let api: Api;
let helps: string[];
beforeAll(async () => {
  api = Api.open(await fixtureDb());
  const top = (await hcas(['--help'])).stdout;
  const commands = [...top.split('\nCommands:\n')[1].matchAll(/^ {2}([a-z-]+)/gm)].map(([, name]) => name).filter((n) => n !== 'help');
  helps = [top, ...(await Promise.all(commands.map(async (name) => (await hcas([name, '--help'])).stdout)))];
}, 120_000);
afterAll(() => api.retire());

describe('docs that agree and point somewhere', () => {
  it('no doc, help text, plan file or OpenAPI text names a file the package does not ship', async () => {
    for (const file of USER_DOCS) expect(readFileSync(path.join(ROOT, file), 'utf8'), file).not.toMatch(ELSEWHERE);
    for (const help of helps) expect(help).not.toMatch(ELSEWHERE);
    const openapi = (await api.respond({ method: 'GET', url: '/api/v1/openapi.json' })).body.toString('utf8');
    expect(openapi).not.toMatch(ELSEWHERE);
    const meta = (await api.respond({ method: 'GET', url: '/api/v1/meta/' })).body.toString('utf8');
    expect(meta).not.toMatch(ELSEWHERE);
    expect(readFileSync(path.join(ROOT, 'raw/manifests/public.json'), 'utf8')).not.toMatch(ELSEWHERE);
  });

  it("hcas fetch --help gives the README's time for the national build", () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const row = /^\| `hcas build` \| about ([\d.]+ to [\d.]+ minutes) \|/m.exec(readme);
    expect(row, 'the README table of expected time and disk').not.toBeNull();
    const fetchHelp = helps.find((help) => help.startsWith('Usage: hcas fetch'))!;
    expect(fetchHelp).toContain(`(about ${row![1]} on 2 cores`);
    expect(fetchHelp.match(/\d+ to \d+ minutes/g)).toEqual([row![1]]);
  });
});
