import { describe, expect, it } from 'vitest';
import { CLINICIAN_GROUPS, densityMix, groupCounts, mixDensity } from '../producers/sample/density-mix.ts';
import { COUNT_KINDS } from '../pipeline/config/clinician-counts.ts';
import { ESTIMATED_FROM } from '../pipeline/config/scoring.ts';
import { categoriesOfTaxonomy, CATEGORY_NAMES } from '../pipeline/config/specialties.ts';

describe('the synthetic providers of the default build', () => {
  const kinds = densityMix();
  const grouped = CLINICIAN_GROUPS.flatMap((g) => Object.keys(g.codes));

  it('draw each scored code in one group that follows a real count or estimate counting it, or at a national density', () => {
    expect(new Set(grouped).size).toBe(grouped.length);
    for (const group of CLINICIAN_GROUPS)
      for (const code of Object.keys(group.codes))
        expect(groupCounts(group.follows, code), `${code} in ${JSON.stringify(group.follows)}`).toBe(true);
    for (const kind of kinds) {
      if (categoriesOfTaxonomy(kind.taxonomy).length === 0) continue;
      // A scored code is drawn by a group (share 0 here) or kept at a density of its own, never both, never neither.
      expect(grouped.includes(kind.taxonomy) !== kind.share > 0, kind.taxonomy).toBe(true);
    }
  });

  it('follow a real count or estimate for every category but dietetics, which no file counts', () => {
    const followed = new Set(
      CLINICIAN_GROUPS.map(({ follows }) => ('count' in follows ? COUNT_KINDS[follows.count].category : follows.estimate)),
    );
    expect(CATEGORY_NAMES.filter((c) => !followed.has(c))).toEqual(['dietetics']);
    for (const { follows } of CLINICIAN_GROUPS)
      if ('estimate' in follows) expect(ESTIMATED_FROM[follows.estimate], follows.estimate).toBeDefined();
    const dietitians = kinds.filter((k) => categoriesOfTaxonomy(k.taxonomy).includes('dietetics'));
    expect(dietitians.every((k) => k.share > 0)).toBe(true);
  });

  it('keep every other kind of provider at the national density it had before the counts', () => {
    const nurses = kinds.find((k) => k.taxonomy === '163W00000X')!;
    const pharmacists = kinds.find((k) => k.taxonomy === '183500000X')!;
    // Shares of provider-mix.ts at 9.44 per 100,000 residents a share point: 8.0 and 5.0 before the counts.
    expect(nurses.share).toBeCloseTo(75.52, 2);
    expect(pharmacists.share).toBeCloseTo(47.2, 2);
    // The kinds no file counts: about 440 individual NPPES providers per 100,000 residents.
    expect(mixDensity(kinds)).toBeGreaterThan(400);
    expect(mixDensity(kinds)).toBeLessThan(480);
  });
});
