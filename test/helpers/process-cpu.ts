import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS = 100;

/**
 * A process's CPU seconds so far (Linux /proc): `own`, every thread of it; `children`, the processes it
 * started that have ended and been waited for (the kernel adds a child's CPU, its own children's included,
 * to its parent when the parent reaps it).
 */
export function processCpu(pid: number | 'self' = 'self'): { own: number; children: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After the command name (in parentheses, which may hold spaces) come fields 3 on: utime is field 14.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
  return { own: (utime + stime) / TICKS, children: (cutime + cstime) / TICKS };
}
