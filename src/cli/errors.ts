import { FixableError } from '../../core/errors.ts';

/** An error the CLI prints as one line on stderr, exiting with `exitCode`; the message names the fix. */
export class CliError extends FixableError {
  override name = 'CliError';
}
