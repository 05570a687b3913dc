import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimits, type Limits } from '../src/auth/config.ts';
import { API_BASE, ROUTES } from '../src/api/index.ts';
import { startServer, type RunningServer } from '../src/server/server.ts';
import { tempDir } from './helpers/files.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { request } from './helpers/http.ts';
import { hcas as runHcas } from './helpers/cli.ts';

const dir = tempDir('hcas-keys-');
const state = path.join(dir, 'state.sqlite');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `hcas ARGS` against the test's state file (REDIS_URL removed: these tests are about the SQLite default). */
const hcas = (...args: string[]): Promise<Run> => runHcas(args, { env: { HCAS_STATE: state, REDIS_URL: undefined } });

let db: string;
let limits: Limits;
let server: RunningServer;
beforeAll(async () => {
  db = await fixtureDb();
});
afterAll(async () => {
  await server?.close();
  await limits?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('hcas keys', { timeout: 60_000 }, () => {
  let key = '';

  it('create prints the key once, on stdout alone; the state keeps only its hash', async () => {
    const created = await hcas('keys', 'create', '--plan', 'professional', '--name', 'Acme Realty');
    expect(created.code).toBe(0);
    key = created.stdout.trim();
    expect(created.stdout).toMatch(/^hcas_live_[0-9A-Za-z]{32}\n$/);
    expect(created.stderr).toBe(
      'created key 1 for Acme Realty on the Professional plan (50,000 calls per month); store it now: it is not shown again\n',
    );
    for (const file of [state, `${state}-wal`]) {
      if (existsSync(file)) expect(readFileSync(file).includes(key.slice(10)), file).toBe(false);
    }
  });

  it('list shows id, name, plan, created, revoked and the last 4 characters, never the key', async () => {
    await hcas('keys', 'create', '--plan', 'free', '--name', 'Second');
    const listed = await hcas('keys', 'list', '--table');
    expect(listed.stdout).not.toContain(key.slice(10, -4));
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^id +name +plan +created +revoked +hint$/);
    expect(lines[2]).toMatch(new RegExp(`^ *1 +Acme Realty +professional +\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z +\\.\\.\\.${key.slice(-4)}$`));
    const json = JSON.parse((await hcas('keys', 'list', '--json')).stdout);
    expect(json).toEqual([
      {
        id: 1,
        name: 'Acme Realty',
        plan: 'professional',
        created: expect.any(String),
        revoked: null,
        hint: `...${key.slice(-4)}`,
        widget_only: false,
        origins: [],
      },
      {
        id: 2,
        name: 'Second',
        plan: 'free',
        created: expect.any(String),
        revoked: null,
        hint: expect.stringMatching(/^\.\.\..{4}$/),
        widget_only: false,
        origins: [],
      },
    ]);
  });

  it('usage shows the calls of the current window, the limit and the reset', async () => {
    const usage = JSON.parse((await hcas('keys', 'usage', '1', '--json')).stdout);
    const now = new Date();
    const reset = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000;
    expect(usage).toMatchObject({ id: 1, plan: 'professional', window: 'month', calls: 0, limit: 50_000, remaining: 50_000, reset });
  });

  it('errors name the fix', async () => {
    expect(await hcas('keys', 'create', '--plan', 'gold', '--name', 'x')).toMatchObject({
      code: 2,
      stderr: 'hcas: --plan must be one of free, professional, business, enterprise (Plan list A), got gold\n',
    });
    expect(await hcas('keys', 'create', '--plan', 'starter', '--name', 'x', '--plans', 'b')).toMatchObject({ code: 0 });
    expect(await hcas('keys', 'revoke', '99')).toMatchObject({
      code: 1,
      stderr: 'hcas: there is no key 99; `hcas keys list` shows the ids\n',
    });
    expect(await hcas('keys', 'usage', 'abc')).toMatchObject({
      code: 2,
      stderr: 'hcas: the key id must be a whole number as `hcas keys list` shows it, got abc\n',
    });
    const notADirectory = path.join(dir, 'a-file');
    writeFileSync(notADirectory, '');
    const unwritable = await hcas(
      'keys',
      'create',
      '--plan',
      'free',
      '--name',
      'x',
      '--state-file',
      path.join(notADirectory, 'state.sqlite'),
    );
    expect(unwritable).toMatchObject({
      code: 3,
      stderr: expect.stringMatching(
        /^hcas: cannot open the state file .*a-file\/state.sqlite .*pass --state-file FILE with a writable path, or set REDIS_URL\n$/,
      ),
    });
    // list does not read the plans, so it takes no --plans; the old spelling of the state file names the new one.
    expect(await hcas('keys', 'list', '--plans', 'b')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^error: unknown option '--plans'/),
    });
    expect(await hcas('keys', 'list', '--state', state)).toMatchObject({
      code: 2,
      stderr: 'hcas: hcas keys list has no --state: the key and counter state file is --state-file FILE\n',
    });
    expect((await hcas('keys', '--help')).stdout).toContain('Examples:\n  hcas keys create --plan professional --name "Acme Realty"');
  });
});

describe('hcas get and the server answer alike', { timeout: 60_000 }, () => {
  let professional = '';
  let professionalId = 0;
  let revoked = '';
  beforeAll(async () => {
    professional = (await hcas('keys', 'create', '--plan', 'professional', '--name', 'parity')).stdout.trim();
    revoked = (await hcas('keys', 'create', '--plan', 'business', '--name', 'gone')).stdout.trim();
    const listed = JSON.parse((await hcas('keys', 'list', '--json')).stdout) as Array<{ id: number; name: string }>;
    professionalId = listed.find((k) => k.name === 'parity')!.id;
    await hcas('keys', 'revoke', String(listed.find((k) => k.name === 'gone')!.id));
    limits = await createLimits({ state }, process.env, ROUTES, API_BASE);
    server = await startServer({ db, port: 0, host: '127.0.0.1', quiet: true, watch: false, log: () => {}, gate: limits.gate });
  });

  const compare = async (url: string, headers: Record<string, string>, flags: string[]) => {
    const served = await request(server.url, url, { headers });
    const printed = await hcas('get', url, '--db', db, ...flags);
    expect(printed.stdout).toBe(served.body.toString('utf8'));
    expect(printed.code).toBe(served.status >= 400 ? 1 : 0);
    return served.status;
  };

  it("with --key: 200 and 403 by the key's plan, 401 for a revoked or unknown key", async () => {
    expect(await compare('/api/v1/health-scores/10001/all-scores/', { 'X-API-Key': professional }, ['--key', professional])).toBe(200);
    expect(await compare('/api/v1/health-scores/geojson/', { 'X-API-Key': professional }, ['--key', professional])).toBe(403);
    expect(await compare('/api/v1/states/', { 'X-API-Key': revoked }, ['--key', revoked])).toBe(401);
    expect(await compare('/api/v1/states/', { 'X-API-Key': 'not-a-key' }, ['--key', 'not-a-key'])).toBe(401);
  });

  it("with --anonymous: the anonymous tier's answers", async () => {
    expect(await compare('/api/v1/health-scores/10001/', {}, ['--anonymous'])).toBe(200);
    expect(await compare('/api/v1/health-scores/10001/all-scores/', {}, ['--anonymous'])).toBe(403);
  });

  it('hcas get never counts a call, and without --key it opens no state at all', async () => {
    const calls = async () => JSON.parse((await hcas('keys', 'usage', String(professionalId), '--json')).stdout).calls;
    const before = await calls();
    for (let i = 0; i < 3; i++) await hcas('get', '/api/v1/states/', '--db', db, '--key', professional);
    expect(await calls()).toBe(before);
    const elsewhere = path.join(dir, 'never', 'state.sqlite');
    const plain = await hcas('get', '/api/v1/health-scores/10001/all-scores/', '--db', db, '--state-file', elsewhere);
    expect(plain).toMatchObject({
      code: 2,
      stderr: 'hcas: --state-file is read only to check a --key: add --key KEY, or leave out --state-file\n',
    });
    expect((await hcas('get', '/api/v1/health-scores/10001/all-scores/', '--db', db)).code).toBe(0);
    expect(existsSync(elsewhere)).toBe(false);
  });
});
