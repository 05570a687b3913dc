import os from 'node:os';

/**
 * How many nice steps a timed test raises its process above the other test files. The kernel's scheduler
 * weighs a task at nice -10 about nine times one at nice 0 (each step is about 1.25x), so the timed server
 * and its client get a core as soon as they wake while the builds of other files wait.
 */
export const RAISE_STEPS = 10;

/**
 * True when this process may raise a thread's priority (root, as CI runs, or CAP_SYS_NICE): tried on the
 * calling thread, then put back (lowering a priority is always allowed).
 */
export function mayRaisePriority(): boolean {
  const restore = raisePriority();
  restore?.();
  return restore !== undefined;
}

/**
 * Raises the calling thread's priority by RAISE_STEPS: the processes it starts afterwards (a server, its
 * cluster workers and their threads) inherit it. Returns the function that puts it back, or undefined when
 * this process may not raise it.
 */
export function raisePriority(): (() => void) | undefined {
  const before = os.getPriority();
  try {
    os.setPriority(Math.max(-20, before - RAISE_STEPS));
  } catch {
    return undefined;
  }
  return () => os.setPriority(before);
}
