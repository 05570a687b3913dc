/** Seconds since the last call (or since it was made): each step of a stage timed on its own. */
export function stopwatch(): () => number {
  let last = process.hrtime.bigint();
  return () => {
    const now = process.hrtime.bigint();
    const seconds = Number(now - last) / 1e9;
    last = now;
    return seconds;
  };
}
