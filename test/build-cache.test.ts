import { existsSync, mkdirSync, readdirSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { entryName, pruneBuildCache } from './helpers/build-cache.ts';
import { tempDir } from './helpers/files.ts';
import { quickStartEntry, terminalLines } from './helpers/quick-start.ts';

const HOUR = 60 * 60_000;
const NOW = Date.parse('2026-01-02T12:00:00Z');

/** A folder last used `hoursAgo` hours before NOW. */
function folder(dir: string, hoursAgo: number): string {
  mkdirSync(dir, { recursive: true });
  const at = new Date(NOW - hoursAgo * HOUR);
  utimesSync(dir, at, at);
  return dir;
}

const entry = (kind: string, version: string) => `${kind.repeat(16)}-${version.repeat(16)}`;

describe('the test build cache keeps what a run will read again', () => {
  it('keeps the current code-and-data key, the two newest others and anything used within the hour; drops the rest', () => {
    const root = tempDir();
    const current = folder(path.join(root, 'c'.repeat(16)), 30);
    for (const [key, hoursAgo] of [
      ['1', 2],
      ['2', 3],
      ['3', 4],
      ['4', 0.5],
      ['5', 50],
    ] as const)
      folder(path.join(root, key.repeat(16)), hoursAgo);
    const removed = pruneBuildCache({ root, current, now: NOW }).map((dir) => path.basename(dir));
    // Newest first: 4 and 1 are the two newest others; 2, 3 and 5 are older and none is in use.
    expect(removed.sort()).toEqual(['2', '3', '5'].map((key) => key.repeat(16)));
    expect(readdirSync(root).sort()).toEqual(['1', '4', 'c'].map((key) => key.repeat(16)));
    // Past the two newest (7 and 4), a key used within the hour (6) may be in use by another run: kept.
    folder(path.join(root, '6'.repeat(16)), 0.9);
    folder(path.join(root, '7'.repeat(16)), 0.1);
    expect(pruneBuildCache({ root, current, now: NOW })).toEqual([path.join(root, '1'.repeat(16))]);
  });

  it('keeps the newest entry of each kind in the current key, and drops older versions and crashed staging folders', () => {
    const root = tempDir();
    const current = folder(path.join(root, 'c'.repeat(16)), 0);
    folder(path.join(current, entry('a', '1')), 2);
    folder(path.join(current, entry('a', '2')), 5); // an older version of kind a
    folder(path.join(current, entry('b', '1')), 48); // the only one of kind b: kept however old
    folder(path.join(current, entry('e', '1')), 0.5); // an older version, but used within the hour (another run)
    folder(path.join(current, entry('e', '2')), 0.2);
    folder(path.join(current, `${entry('d', '1')}.making-123`), 3); // left by a crashed run
    folder(path.join(current, `${entry('d', '2')}.lock`), 0.1); // held now
    const removed = pruneBuildCache({ root, current, now: NOW });
    expect(removed.map((dir) => path.basename(dir)).sort()).toEqual([entry('a', '2'), `${entry('d', '1')}.making-123`]);
    expect(readdirSync(current).sort()).toEqual(
      [entry('a', '1'), entry('b', '1'), entry('e', '1'), entry('e', '2'), `${entry('d', '2')}.lock`].sort(),
    );
    expect(existsSync(current)).toBe(true);
  });

  it("keeps the quick start of every Node line CI runs: each line's is a kind of its own, not a version of one", () => {
    const root = tempDir();
    const current = folder(path.join(root, 'c'.repeat(16)), 0);
    // CI's order: the suite on 26, then the lines 22 and 24; a run hours later on 26 must still find its own.
    const lines = { 'v26.10.0': 3, 'v22.23.3': 2.5, 'v24.21.0': 2 };
    for (const [version, hoursAgo] of Object.entries(lines)) folder(path.join(current, entryName(quickStartEntry(version))), hoursAgo);
    expect(pruneBuildCache({ root, current, now: NOW })).toEqual([]);
    expect(readdirSync(current)).toHaveLength(3);
  });
});

describe('terminalLines', () => {
  it('shows what a terminal shows: redrawn lines in their last state, erased ones gone', () => {
    const bytes =
      'wrote a\r\n\r  rows 1 of 3 [#  ]\u001b[K\r  rows 3 of 3 [###]\u001b[K\r\u001b[Kbuilt\r\n\u001b[1mbold\u001b[0m\r\nlong line\rshort\u001b[K\n';
    expect(terminalLines(bytes)).toEqual(['wrote a', 'built', 'bold', 'short']);
  });
});
