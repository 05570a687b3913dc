import type { FramePoint } from './projection.ts';

/**
 * Douglas-Peucker simplification of a line in frame units: the points whose removal moves the line by less
 * than `tolerance`. Endpoints always stay, so arcs shared by two counties stay joined. A closed ring (first
 * point equal to the last) keeps the point farthest from its start as well.
 */
export function simplifyLine(line: readonly FramePoint[], tolerance: number): FramePoint[] {
  if (line.length <= 2) return [...line];
  const keep = new Uint8Array(line.length);
  keep[0] = 1;
  keep[line.length - 1] = 1;
  const squared = tolerance * tolerance;
  const stack: Array<[number, number]> = [[0, line.length - 1]];
  while (stack.length > 0) {
    const [first, last] = stack.pop()!;
    let farthest = -1;
    let most = squared;
    for (let i = first + 1; i < last; i++) {
      const distance = squaredDistanceToSegment(line[i], line[first], line[last]);
      if (distance > most) {
        most = distance;
        farthest = i;
      }
    }
    if (farthest < 0) continue;
    keep[farthest] = 1;
    stack.push([first, farthest], [farthest, last]);
  }
  return line.filter((_, i) => keep[i] === 1);
}

function squaredDistanceToSegment([px, py]: FramePoint, [ax, ay]: FramePoint, [bx, by]: FramePoint): number {
  const dx = bx - ax;
  const dy = by - ay;
  const length = dx * dx + dy * dy;
  const t = length === 0 ? 0 : Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / length));
  const x = ax + t * dx - px;
  const y = ay + t * dy - py;
  return x * x + y * y;
}
