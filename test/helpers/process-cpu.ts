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

/**
 * The whole machine's CPU seconds so far, every core summed (Linux /proc/stat): `busy`, anything running
 * (any process, containers and the kernel's own work included), and `idle` (waiting for the disk counted as idle).
 */
export function machineCpu(): { busy: number; idle: number } {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/);
  // user nice system idle iowait irq softirq steal (guest time is already inside user). Steal, time the host
  // gave another guest, counts as busy: the cores were not this machine's to use.
  const [user, nice, system, idle, iowait, irq, softirq, steal] = ticks.map(Number);
  return { busy: (user + nice + system + irq + softirq + steal) / TICKS, idle: (idle + iowait) / TICKS };
}
