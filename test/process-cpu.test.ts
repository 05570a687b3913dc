import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processCpu } from './helpers/process-cpu.ts';

/** Spins until this thread has used `seconds` more CPU (getrusage's user time), however busy the machine. */
const SPIN = `const spin = (seconds) => { const from = process.cpuUsage(); while (process.cpuUsage(from).user < seconds * 1e6); };`;
const spin = new Function(`${SPIN} return spin;`)() as (seconds: number) => void;

// bench/suite.ts's figures (and bench/lib.ts's cpuSeconds) stand on this reading of /proc.
describe.skipIf(process.platform !== 'linux')("processCpu: a process's CPU from /proc", () => {
  it('counts what getrusage counts for this process, and a child once it has been waited for', () => {
    const before = processCpu();
    const rusage = process.cpuUsage();
    spin(0.3);
    const spun = processCpu();
    const { user, system } = process.cpuUsage(rusage);
    // Both count every thread of the process, user and system; /proc in ticks of 10 ms.
    expect(spun.own - before.own).toBeGreaterThanOrEqual(0.28);
    expect(Math.abs(spun.own - before.own - (user + system) / 1e6)).toBeLessThan(0.05);
    expect(spun.children).toBe(before.children);
    spawnSync(process.execPath, ['-e', `${SPIN} spin(0.3);`]);
    expect(processCpu().children - spun.children).toBeGreaterThanOrEqual(0.28);
  });

  it('reads a process by its id', () => {
    const byId = processCpu(process.pid);
    expect(byId.own).toBeGreaterThan(0);
    expect(Math.abs(byId.own - processCpu().own)).toBeLessThan(0.05);
  });
});
