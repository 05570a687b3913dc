import type { Command } from 'commander';

/** A stream a command writes to: the process's stdout or stderr, or a test's buffer. */
export type OutputStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/**
 * What a command is handed to talk to the world: where its output and its notes go, and the environment it
 * reads its defaults from (HCAS_DB, HCAS_STATE, REDIS_URL, ...). bin/hcas.js hands the process's own
 * (`processIo`); tests hand buffers and an environment of their own, and run the command in their process.
 */
export interface CommandIo {
  /** The output: records, JSON, the log of a long command. */
  stdout: OutputStream;
  /** Notes for the person, progress, errors. */
  stderr: OutputStream;
  env: NodeJS.ProcessEnv;
}

/** The process's own streams and environment. */
export function processIo(): CommandIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/** Adds a module's commands to the program; their actions write through `io`. */
export type RegisterCommands = (program: Command, io: CommandIo) => void;

/**
 * One entry of the `hcas` command table: the command names a module registers, and that module, loaded
 * only when one of its commands runs (or for `--help`). The producers, the pipeline and the API each list
 * their own commands; bin/hcas.js joins the lists.
 */
export interface CommandEntry {
  names: readonly string[];
  load(): Promise<RegisterCommands>;
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
