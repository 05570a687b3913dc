import type { Command } from 'commander';

/**
 * One entry of the `hcas` command table: the command names a module registers, and that module, loaded
 * only when one of its commands runs (or for `--help`). The pipeline and the API each list their own
 * commands; bin/hcas.js joins the two lists.
 */
export interface CommandEntry {
  names: readonly string[];
  load(): Promise<(program: Command) => void>;
  /**
   * How the process should be set up for a long batch command: Node/V8 flags and environment that only
   * take effect at startup. bin/hcas.js re-runs the command in a child process that has them (src/cli/rerun.ts).
   */
  runtime?: ProcessRuntime;
}

export interface ProcessRuntime {
  /** Node/V8 flags, e.g. `--max-semi-space-size=32`; one the user already passed (by name) is left as given. */
  nodeFlags: readonly string[];
  /** Environment variables read at startup (by the C library, say); one the user already set is left as set. */
  env: Readonly<Record<string, string>>;
}
