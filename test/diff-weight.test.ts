import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { diffBuilds } from '../src/diff/index.ts';
import { cachedBuild, cachedOutput } from './helpers/real-build.ts';
import { PUBLIC_MANIFEST } from './helpers/variant-build.ts';

/**
 * A method change: the public build again with the composite's hospital weight raised from 6 to 8 twentieths
 * (the pipeline's scoring configuration, replaced for this one build). The diff must name that constant as
 * the first and only cause of every ZIP that moved, in one line, not one per ZIP.
 */
describe('hcas diff names a changed scoring weight', { timeout: 600_000 }, () => {
  it('one cause, scoring constant COMPOSITE_WEIGHTS, for every ZIP that moved', async () => {
    const base = (await cachedBuild(PUBLIC_MANIFEST)).out;
    // Made once per code and data, like the public build it is compared with.
    const { out } = await cachedOutput('the public build with COMPOSITE_WEIGHTS.hospital 8', async (dir) => {
      vi.resetModules();
      vi.doMock('../pipeline/config/scoring.ts', async (original) => ({
        ...(await original<typeof import('../pipeline/config/scoring.ts')>()),
        COMPOSITE_WEIGHTS: { provider: 7, hospital: 8, travel: 4 },
      }));
      try {
        const { build } = await import('../pipeline/run/index.ts');
        await build({ manifest: PUBLIC_MANIFEST, out: path.join(dir, 'hcas.sqlite') });
      } finally {
        vi.doUnmock('../pipeline/config/scoring.ts');
        vi.resetModules();
      }
    });
    const report = diffBuilds(base, out, { top: Number.POSITIVE_INFINITY, minResidents: 0 });
    expect(report.builds.sources).toEqual([]);
    expect(report.builds.settings).toEqual([{ path: 'scoring.COMPOSITE_WEIGHTS.hospital', old: 6, new: 8 }]);
    // Only the composite moved: every component is as it was.
    expect(report.scores.national.components).toEqual({ people: 0, provider: null, hospital: 0, travel: 0 });
    expect(report.scores.zips.moved).toBeGreaterThan(10_000);
    expect(report.why.causes).toEqual([
      {
        kind: 'scoring',
        cause: 'scoring constant COMPOSITE_WEIGHTS changed: hospital 6 → 8',
        inputs: 1,
        examples: ['scoring constant COMPOSITE_WEIGHTS changed: hospital 6 → 8'],
        first_for_zips: report.scores.zips.changed,
        first_for_residents: expect.any(Number),
        zips: report.scores.zips.changed,
      },
    ]);
    expect(new Set(report.why.zips.flatMap((z) => z.causes.map((c) => c.id)))).toEqual(new Set(['scoring:COMPOSITE_WEIGHTS']));
    expect(report.status.agree).toBe(false);
  });
});
