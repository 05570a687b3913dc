import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, shell } from './helpers/cli.ts';
import { CommandSession, plainCommandLine } from './helpers/command-session.ts';
import { tempDir } from './helpers/files.ts';
import { fixtureDb } from './helpers/fixture-db.ts';

/**
 * The command session (test/helpers/command-session.ts) stands in for a shell in the help examples' test: it
 * must read a command line as bash does, or refuse it, and a command run in it must answer what the same
 * command answers in a process of its own.
 */
describe('plainCommandLine reads a plain hcas command line as bash would', () => {
  it('words, quotes, variables, a redirection, a pipe and a comment', () => {
    expect(plainCommandLine('hcas score 10001')).toEqual({ env: {}, args: ['score', '10001'] });
    expect(plainCommandLine('HCAS_LOG_LEVEL=warn HCAS_WORKERS=1 hcas serve')).toEqual({
      env: { HCAS_LOG_LEVEL: 'warn', HCAS_WORKERS: '1' },
      args: ['serve'],
    });
    expect(plainCommandLine(`hcas get 'health-scores/?state=NY&min_score=70' | jq .count`)).toEqual({
      env: {},
      args: ['get', 'health-scores/?state=NY&min_score=70'],
      pipe: 'jq .count',
    });
    expect(plainCommandLine('hcas keys create --plan professional --name "Acme Realty"')?.args).toEqual([
      'keys',
      'create',
      '--plan',
      'professional',
      '--name',
      'Acme Realty',
    ]);
    expect(plainCommandLine('hcas states --csv > states.csv   # a comment, | not a pipe')).toEqual({
      env: {},
      args: ['states', '--csv'],
      redirect: 'states.csv',
    });
    expect(plainCommandLine(`hcas diff a.sqlite --json | jq '.scores.zips, .status'`)?.pipe).toBe(`jq '.scores.zips, .status'`);
    expect(plainCommandLine(`hcas x --endpoints 'blog/*,widget-score/{zip}/'`)?.args).toEqual([
      'x',
      '--endpoints',
      'blog/*,widget-score/{zip}/',
    ]);
  });

  it('and leaves to bash what only a shell does', () => {
    for (const line of [
      'hcas sample && hcas build',
      'hcas score $ZIP',
      'hcas score "$ZIP"',
      'echo hcas',
      'hcas states > a.csv > b.csv',
      'hcas states >> a.csv',
      'hcas states 2>&1',
      'hcas states 2>errors.txt',
      'hcas keys create --origin https://*.acme.example',
      `hcas score 'unterminated`,
      'hcas states > | jq .',
      'hcas states >',
      'hcas states > a.csv --csv',
    ])
      expect(plainCommandLine(line), line).toBeNull();
  });
});

describe('a command run in the session answers as in a process of its own', { timeout: 60_000 }, () => {
  let db: string;
  let session: CommandSession;
  const work = tempDir('hcas-session-test-');

  beforeAll(async () => {
    db = await fixtureDb();
    session = new CommandSession(ROOT);
  });

  afterAll(async () => {
    await session?.close();
  });

  it('the same output and status as the real command', async () => {
    for (const line of [`hcas score 10001 --db '${db}'`, `hcas scores --state RI --csv --db '${db}'`, `hcas score 00000 --db '${db}'`]) {
      const [own, inSession] = await Promise.all([shell(line, { cwd: work }), session.run(plainCommandLine(line)!, work)]);
      expect(inSession.statuses, line).toEqual(own.statuses);
      expect(inSession.stdout, line).toBe(own.stdout);
      expect(inSession.stderr, line).toBe(own.stderr);
    }
    expect((await session.run(plainCommandLine(`hcas score 00000 --db '${db}'`)!, work)).statuses).toEqual([1]);
  });

  it('writes a redirection in its working directory and pipes into the next command', async () => {
    const written = await session.run(plainCommandLine(`hcas states --csv --db '${db}' > states.csv`)!, work);
    expect(written).toEqual({ statuses: [0], stdout: '', stderr: '' });
    expect(readFileSync(path.join(work, 'states.csv'), 'utf8')).toMatch(/^state_code,state_name,/);
    const piped = await session.run(plainCommandLine(`hcas states --db '${db}' | head -1`)!, work);
    expect(piped).toMatchObject({ statuses: [0, 0], stdout: expect.stringMatching(/^state_code\s+state_name\s+\S+/) });
    expect(piped.stdout.split('\n')).toHaveLength(2);
    const failedPipe = await session.run(plainCommandLine(`hcas states --db '${db}' | grep no-such-state`)!, work);
    expect(failedPipe.statuses).toEqual([0, 1]);
    // A longer pipe: its first command reads the output, as in bash.
    const longer = await session.run(plainCommandLine(`hcas states --csv --db '${db}' | tail -n +2 | wc -l`)!, work);
    expect(longer.statuses).toEqual([0, 0]);
    const rows = readFileSync(path.join(work, 'states.csv'), 'utf8').trim().split('\n').length - 1;
    expect(rows).toBeGreaterThan(1);
    expect(Number(longer.stdout.trim())).toBe(rows);
  });

  it('gives each command the environment it is handed, and nothing of the one before', async () => {
    const withDb = await session.run(plainCommandLine(`HCAS_DB='${db}' hcas score 10001 --fields zip_code`)!, work);
    expect(withDb).toMatchObject({ statuses: [0], stdout: 'zip_code\n10001\n' });
    const missing = path.join(work, 'missing.sqlite');
    const without = await session.run(plainCommandLine('hcas score 10001 --fields zip_code')!, work, { HCAS_DB: missing });
    expect(without.statuses).toEqual([3]);
    expect(without.stderr).toContain(`no database at ${missing}`);
    expect(session.stray()).toBe('');
  });
});
