/** An error the CLI prints as one line on stderr, exiting with `exitCode`; the message names the fix. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}
