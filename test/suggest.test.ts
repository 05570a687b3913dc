import { describe, expect, it } from 'vitest';
import { nearest } from '../src/http/suggest.ts';

const candidates = (...shown: string[]) => shown.map((s) => ({ key: s.toLowerCase(), shown: s }));

describe('did you mean: the nearest valid values', () => {
  it('of values as near, the one sharing the longest start comes first, whatever the candidates order', () => {
    // Both are two edits from cardiologist; the default build lists Audiologist first (more providers).
    expect(nearest('cardiologist', candidates('Audiologist', 'cardiology'))).toEqual(['cardiology', 'Audiologist']);
  });

  it('nearer values first, the start of a value counting as near, nothing when nothing is near', () => {
    expect(nearest('pediatrcs', candidates('Podiatrist', 'Pediatrics'))).toEqual(['Pediatrics']);
    expect(nearest('fam med', candidates('Internal Medicine', 'Family Medicine'))).toEqual(['Family Medicine']);
    expect(nearest('astrology', candidates('Neurology', 'Urology'))).toEqual([]);
  });
});
