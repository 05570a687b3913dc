import { beforeAll, describe, expect, it } from 'vitest';
import { diffDocument } from '../src/cli/diff/document.ts';
import { asMarkdown, asText } from '../src/cli/diff/render.ts';
import { type DiffReport, diffBuilds } from '../src/diff/index.ts';
import { DEFAULT_PROVIDERS } from '../producers/sample/index.ts';
import { cachedBuild, cachedDefaultBuild } from './helpers/real-build.ts';
import { PUBLIC_MANIFEST } from './helpers/variant-build.ts';

/**
 * The default build (the bundled real data with synthetic providers) against the build of
 * raw/manifests/public.json, which publishes no provider component: every ZIP moves, and the report says why
 * in one line, not one line per ZIP.
 */
describe('hcas diff: the default build against the public build without providers', { timeout: 600_000 }, () => {
  let report: DiffReport;
  beforeAll(async () => {
    const withProviders = (await cachedDefaultBuild()).out;
    report = diffBuilds(withProviders, (await cachedBuild(PUBLIC_MANIFEST)).out, { top: Number.POSITIVE_INFINITY, minResidents: 0 });
  }, 600_000);

  it('explains the provider component’s absence in one line for all 33,791 ZIPs', () => {
    expect(report.scores.zips.changed).toBe(33_791);
    expect(report.why.causes).toHaveLength(1);
    expect(report.why.causes[0]).toMatchObject({ kind: 'provider_basis', inputs: 1, first_for_zips: 33_791, zips: 33_791 });
    expect(report.why.causes[0].cause).toMatch(
      /^provider component not published in NEW \(data_quality\.provider: The provider files do not cover the country/,
    );
    for (const zip of report.why.zips) expect(zip.causes.map((c) => c.id)).toEqual(['provider_basis']);
    // The printed report has one cause row; each ZIP listed points at it in a few words.
    const text = asText(diffDocument({ ...report, why: { ...report.why, zips: report.why.zips.slice(0, 10) } }));
    expect(text.split('\n').filter((line) => line.includes('data_quality.provider: The provider files'))).toHaveLength(1);
    expect(text).toMatch(/^ +33,791 +[\d,]+ +33,791 +provider component not published in NEW/m);
  });

  it('says which inputs differ, and what the providers were', () => {
    expect(report.builds.sources.map((s) => [s.key, s.change])).toEqual([
      ['nppes', 'removed'],
      ['doctors_clinicians', 'removed'],
    ]);
    expect(report.builds.settings).toContainEqual({ path: 'data_quality.provider.status', old: 'sample', new: 'omitted' });
    expect(report.old.provider_component).toBe('sample');
    expect(report.new.provider_component).toBe('omitted');
    expect(report.why.providers!.total).toEqual({ old: DEFAULT_PROVIDERS, new: 0 });
    expect(report.why.providers!.by_category.find((c) => c.category === 'primary_care')).toMatchObject({ new: 0 });
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
