import { setImmediate } from 'node:timers/promises';

/**
 * Long loops of the map's making give the event loop back every `every` steps: the map's data is made on the
 * server's event loop, once per build, between other requests (src/api/map.ts says why), so no slice holds it
 * for long.
 */
export class Slicer {
  private steps = 0;
  private readonly every: number;

  constructor(every: number) {
    this.every = every;
  }

  /** Counts a step; every `every` steps, waits for the next turn of the event loop. */
  step(): Promise<void> | undefined {
    if (++this.steps % this.every !== 0) return undefined;
    return setImmediate();
  }
}
