/**
 * The exit statuses of `hcas` (README, "Exit codes"): scripts tell a missing answer from a mistyped command
 * from broken data without reading the message.
 */
export const EXIT = {
  ok: 0,
  /** Nothing found, or an empty result, where a result was asked for. */
  notFound: 1,
  /** The command line is wrong: an unknown or misspelt flag, a bad value, flags that do not go together. */
  usage: 2,
  /** The data or the database: missing, unreadable, failing its checks; a build or a download that failed. */
  data: 3,
} as const;

/**
 * An error whose message tells the person at the command line what to fix: `hcas` prints `hcas: MESSAGE`
 * without a stack and exits with `exitCode` (a usage error unless said otherwise). The pipeline's
 * BuildError and the CLI's CliError are kinds of it, so the command line recognises both without either
 * side importing the other.
 */
export class FixableError extends Error {
  override name = 'FixableError';
  readonly exitCode: number;

  constructor(message: string, exitCode: number = EXIT.usage) {
    super(message);
    this.exitCode = exitCode;
  }
}
