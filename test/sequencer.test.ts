import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIRST, LAST } from './helpers/sequencer.ts';

describe('the order test files start in (test/helpers/sequencer.ts)', () => {
  it('names test files that exist, each once: a renamed file would silently lose its place', () => {
    const named = [...FIRST, ...LAST];
    for (const file of named) expect(existsSync(path.resolve(import.meta.dirname, '..', file)), file).toBe(true);
    expect(new Set(named).size).toBe(named.length);
  });
});
