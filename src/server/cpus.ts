import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';

/** Reads a file as text, or undefined when it is absent (injectable: tests pass a fake file system). */
export type ReadText = (file: string) => string | undefined;

const readText: ReadText = (file) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

const CGROUP_ROOT = '/sys/fs/cgroup';

/**
 * The CPUs this process may use by its cgroup's CPU quota (a container's `--cpus`, systemd's `CPUQuota=`),
 * or undefined when it has none. Node 20's `availableParallelism()` counts the CPUs it may be scheduled on,
 * not the quota: a container limited to 1 CPU on a 64-core host sees 64. cgroup v2 (`cpu.max`) and v1
 * (`cpu.cfs_quota_us` / `cpu.cfs_period_us`) are read for the process's own group and each parent, and the
 * smallest quota wins. Fractions round down (1.5 CPUs serve best with 1 busy process), never below 1.
 */
export function cgroupCpuLimit(read: ReadText = readText): number | undefined {
  const groups = read('/proc/self/cgroup');
  if (groups === undefined) return undefined;
  const limits: number[] = [];
  for (const line of groups.split('\n')) {
    const [id, controllers, groupPath] = line.split(':');
    if (groupPath === undefined) continue;
    if (id === '0' && controllers === '') {
      for (const dir of candidates(CGROUP_ROOT, groupPath)) {
        const [quota, period] = (read(path.join(dir, 'cpu.max')) ?? '').trim().split(/\s+/);
        if (quota && quota !== 'max' && Number(period) > 0) limits.push(Number(quota) / Number(period));
      }
    } else if (controllers.split(',').includes('cpu')) {
      for (const mount of [`${CGROUP_ROOT}/${controllers}`, `${CGROUP_ROOT}/cpu`, `${CGROUP_ROOT}/cpu,cpuacct`]) {
        for (const dir of candidates(mount, groupPath)) {
          const quota = Number(read(path.join(dir, 'cpu.cfs_quota_us')));
          const period = Number(read(path.join(dir, 'cpu.cfs_period_us')));
          if (quota > 0 && period > 0) limits.push(quota / period);
        }
      }
    }
  }
  return limits.length === 0 ? undefined : Math.max(1, Math.floor(Math.min(...limits)));
}

/**
 * The group's directory and its parents up to the mount point. Inside a container the group path is
 * usually `/` (a cgroup namespace) and the mount point itself is the container's group.
 */
function candidates(mount: string, groupPath: string): string[] {
  const dirs: string[] = [];
  let current = path.posix.normalize(groupPath || '/');
  for (;;) {
    dirs.push(path.posix.join(mount, current));
    if (current === '/' || current === '.') break;
    current = path.posix.dirname(current);
  }
  return dirs;
}

/**
 * Worker processes for `hcas serve --workers auto` (the default): one per CPU the process may use, the
 * cgroup quota included.
 */
export function defaultWorkers(read: ReadText = readText, parallelism: number = availableParallelism()): number {
  const quota = cgroupCpuLimit(read);
  return Math.max(1, quota === undefined ? parallelism : Math.min(parallelism, quota));
}
