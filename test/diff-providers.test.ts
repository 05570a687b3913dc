import { beforeAll, describe, expect, it } from 'vitest';
import { diffDocument } from '../src/cli/diff/document.ts';
import { asMarkdown, asText } from '../src/cli/diff/render.ts';
import { type DiffReport, diffBuilds } from '../src/diff/index.ts';
import { DEFAULT_PROVIDERS } from '../producers/sample/index.ts';
import { cachedBuild, cachedDefaultBuild } from './helpers/real-build.ts';
import { PUBLIC_MANIFEST } from './helpers/variant-build.ts';

/**
 * The default build (the bundled real data with synthetic providers drawn to the real counts) against the build
 * of raw/manifests/public.json, whose clinicians are the county counts themselves: most ZIPs move, and the
 * report says why in two lines (the provider basis, then the clinicians nearby), not one line per ZIP.
 */
describe('hcas diff: the default build against the public build of the real counts', { timeout: 600_000 }, () => {
  let report: DiffReport;
  beforeAll(async () => {
    const sample = (await cachedDefaultBuild()).out;
    report = diffBuilds(sample, (await cachedBuild(PUBLIC_MANIFEST)).out, { top: Number.POSITIVE_INFINITY, minResidents: 0 });
  }, 600_000);

  it('explains the change of provider basis in one line for every ZIP it moved', () => {
    expect(report.scores.zips.changed).toBeGreaterThan(30_000);
    expect(report.why.causes.map((c) => c.kind)).toEqual(['provider_basis', 'clinicians']);
    expect(report.why.causes[0]).toMatchObject({
      inputs: 1,
      cause: 'provider basis changed: sample → measured',
      zips: report.scores.zips.changed,
    });
    // Most ZIPs first by the basis; a ZIP whose own clinicians moved most (the sample's draw against its count), by them.
    for (const zip of report.why.zips) expect(['provider_basis', 'clinicians'], zip.zip).toContain(zip.causes[0].id.split(':')[0]);
    expect(report.why.causes[0].first_for_zips).toBeGreaterThan(report.scores.zips.changed / 2);
    // The printed report has one row per cause; each ZIP listed points at them in a few words.
    const text = asText(diffDocument({ ...report, why: { ...report.why, zips: report.why.zips.slice(0, 10) } }));
    const lines = text.split('\n').filter((line) => line.includes('provider basis changed: sample → measured'));
    expect(lines.filter((line) => /^ +[\d,]+ +[\d,]+ +[\d,]+ +provider basis changed/.test(line))).toHaveLength(1);
    expect(lines.filter((line) => /^ +why: provider basis changed/.test(line)).length).toBeLessThanOrEqual(10);
  });

  it('says which inputs differ, and what the providers were', () => {
    expect(report.builds.sources.map((s) => [s.key, s.change])).toEqual([
      ['nppes', 'removed'],
      ['doctors_clinicians', 'removed'],
      ['obgyn_roster', 'added'],
    ]);
    expect(report.builds.settings).toContainEqual({ path: 'data_quality.provider.status', old: 'sample', new: 'measured' });
    expect(report.old.provider_component).toBe('sample');
    expect(report.new.provider_component).toBe('measured');
    // The public build names the real OB/GYN roster's clinicians; its other clinicians are counts, not rows.
    expect(report.why.providers!.total).toEqual({ old: DEFAULT_PROVIDERS, new: 31_774 });
    // Per 100,000 residents, the sample scaled back up is the counts it was drawn to (within 1%).
    const primaryCare = report.why.providers!.by_category.find((c) => c.category === 'primary_care')!;
    expect(Math.abs(primaryCare.new! / primaryCare.old! - 1)).toBeLessThan(0.01);
    // Facilities lost their affiliated clinicians, which is no change of the roster.
    expect(report.why.facilities).toMatchObject({ added: 0, removed: 0, changed: 0 });
    expect(report.why.facilities!.provider_count_only).toBeGreaterThan(0);
  });

  it('prints the same report as Markdown for a pull request', () => {
    const markdown = asMarkdown(diffDocument({ ...report, why: { ...report.why, zips: report.why.zips.slice(0, 3) } }));
    expect(markdown).toMatch(/^# hcas diff: build [0-9a-f]{16} \(OLD\) → [0-9a-f]{16} \(NEW\)\n/);
    for (const heading of ['## 1. Builds', '## 2. Scores (overall)', '## 3. Why', '### Facility roster', '### Providers', '## Status'])
      expect(markdown).toContain(`\n${heading}\n`);
    expect(markdown).toContain('| nppes | removed |');
    expect(markdown).toMatch(/\n- \d{5} .+: \d+ .+ → \d+ .+ \([+-]\d+\)\n {2}- components: /);
  });
});
