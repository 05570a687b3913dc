import { describe, expect, it } from 'vitest';
import { formatProgress, progressReporter, snapshot } from '../core/progress.ts';

function fakeOutput(isTTY: boolean) {
  const writes: string[] = [];
  return { stream: { isTTY, write: (text: string) => void writes.push(text) }, writes };
}

describe('progress of long reads', () => {
  it('prints a plain line every interval when not on a terminal: rows, size, rate, percent, ETA', () => {
    const { stream, writes } = fakeOutput(false);
    let clock = 0;
    const progress = progressReporter({ stream, now: () => clock })('nppes');
    clock = 500;
    progress.update(1_000, 1e6, 0.01); // before the quiet period: nothing
    clock = 5_000;
    progress.update(1_000_000, 1.2e9, 0.25);
    clock = 6_000;
    progress.update(1_100_000, 1.3e9, 0.27); // within the interval: nothing
    clock = 10_000;
    progress.update(2_000_000, 2.4e9, 0.5);
    progress.done();
    expect(writes).toEqual([
      '  nppes, 1,000,000 rows, 1.2 GB at 240 MB/s, 25% of the file, ETA 0:15\n',
      '  nppes, 2,000,000 rows, 2.4 GB at 240 MB/s, 50% of the file, ETA 0:10\n',
    ]);
  });

  it('redraws one line with a bar on a terminal and clears it when done', () => {
    const { stream, writes } = fakeOutput(true);
    let clock = 0;
    const progress = progressReporter({ stream, now: () => clock })('doctors_clinicians');
    clock = 2_000;
    progress.update(500, 50e6, 0.5);
    progress.done();
    expect(writes).toEqual(['\r  doctors_clinicians  500 rows  50 MB at 25 MB/s  [##########          ] 50%  ETA 0:02\x1b[K', '\r\x1b[K']);
  });

  it('is silent when asked, and leaves out percent and ETA when the size is unknown', () => {
    const { stream, writes } = fakeOutput(true);
    let clock = 0;
    const progress = progressReporter({ stream, mode: 'silent', now: () => clock })('x');
    clock = 60_000;
    progress.update(1, 1);
    progress.done();
    expect(writes).toEqual([]);
    expect(formatProgress(snapshot('x', 10, 2e6, 2, undefined), false)).toBe('  x, 10 rows, 2 MB at 1 MB/s');
  });
});
