/** The build log: detail lines, and each stage between its heading and the time it took. */
export interface StageLog {
  /** A detail line of the stage running (indented by its caller). */
  line(text: string): void;
  /** Runs one stage under its heading; the stage's last line is its own duration and the memory resident after it. */
  stage<T>(heading: string, run: () => T | Promise<T>): Promise<T>;
}

/** A stage log printing through `print`, or silent. */
export function stageLog(print: ((line: string) => void) | undefined): StageLog {
  const line = print ?? (() => {});
  return {
    line,
    async stage(heading, run) {
      line(`${heading}:`);
      const started = process.hrtime.bigint();
      const result = await run();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      line(`  took ${seconds.toFixed(1)} s; ${Math.round(process.memoryUsage.rss() / 2 ** 20)} MB resident`);
      return result;
    },
  };
}
