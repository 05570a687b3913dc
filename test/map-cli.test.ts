import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hcas } from './helpers/cli.ts';
import { fixtureDb } from './helpers/fixture-db.ts';

/** `hcas map`: the picture an analyst pastes into a report, on the fixture build. */
describe('hcas map', { timeout: 120_000 }, () => {
  let db: string;
  let dir: string;

  beforeAll(async () => {
    db = await fixtureDb();
    dir = mkdtempSync(path.join(tmpdir(), 'hcas-map-cli-'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes an SVG with its title, the legend of the five bands and no score, and the source note', async () => {
    const run = await hcas(['map', '--db', db, '--state', 'RI', '--score-type', 'asthma']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="1200" height="\d+"/);
    expect(run.stdout).toContain('>Asthma Score by ZIP code, Rhode Island</text>');
    for (const band of ['Healthcare Desert', 'Limited Access', 'Moderate Access', 'Excellent Access', 'Healthcare Paradise', 'No score']) {
      expect(run.stdout).toContain(`>${band}</text>`);
    }
    expect(run.stdout).toMatch(/build [0-9a-f]{16} of \d{4}-\d\d-\d\d\. Outlines: U\.S\. Census Bureau cartographic boundaries, 2017/);
    expect(run.stdout).toContain('Made by hcas map --state RI --score-type asthma.');
    // A dot per ZIP code of the state, as circles.
    expect(run.stdout).toMatch(/<path d="M[\d.]+ [\d.]+a[\d.]+ [\d.]+ 0 1 0/);
  });

  it('gives the same bytes for the same build and options, SVG and PNG', async () => {
    const [a, b] = [path.join(dir, 'a.png'), path.join(dir, 'b.png')];
    for (const file of [a, b]) {
      const run = await hcas(['map', '--db', db, '--by', 'county', '--width', '600', '--out', file]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/^wrote .*\.png \(PNG, [\d,]+ bytes\)\n$/);
    }
    const png = readFileSync(a);
    expect(png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
    expect(png.readUInt32BE(16)).toBe(600); // the IHDR's width
    expect(png.equals(readFileSync(b))).toBe(true);
    const [first, second] = await Promise.all([1, 2].map(() => hcas(['map', '--db', db, '--state', 'NY'])));
    expect(first.stdout).toBe(second.stdout);
  });

  it.each([
    [['--state', 'ZZ'], 1, 'no ZIP code of state ZZ in this build'],
    [['--state', 'New York'], 2, '--state must be a two-letter state code such as NY, got New York'],
    [['--score-type', 'gout'], 2, '--score-type must be a score type id from 1 to 11 or one of overall'],
    [['--by', 'tract'], 2, '--by must be zip or county, got tract'],
    [['--width', '90'], 2, '--width must be an integer from 400 to 4000, got 90'],
    [['--out', 'map.gif'], 2, '--out map.gif names no picture format: end it in .svg or .png, or add --format svg|png'],
    [['--out', 'map.svg', '--format', 'png'], 2, '--out map.svg and --format png disagree'],
  ])('refuses %j with exit %i and a message that names the fix', async (args, code, message) => {
    const run = await hcas(['map', '--db', db, ...args]);
    expect(run.code).toBe(code);
    expect(run.stderr).toContain(message);
  });
});
