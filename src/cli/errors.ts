import { EXIT, FixableError } from '../../core/errors.ts';

export { EXIT };

/**
 * An error the CLI prints as one line on stderr, exiting with `exitCode`: a usage error (2) unless said
 * otherwise. The message names the fix.
 */
export class CliError extends FixableError {
  override name = 'CliError';
}

/** Nothing found, or an empty result, where a result was asked for: exit 1. */
export function notFound(message: string): CliError {
  return new CliError(message, EXIT.notFound);
}

/** The database or the data: missing, unreadable, failing its checks: exit 3. */
export function dataError(message: string): CliError {
  return new CliError(message, EXIT.data);
}

/** The advice every message about a build that cannot be read ends with (the query layer's errors carry it too). */
const REBUILD = 'rebuild it with `hcas build`';

/** `message` ending with the advice to rebuild, once: a reason from the query layer may carry it already. */
export function withRebuildAdvice(message: string): string {
  return message.includes(REBUILD) ? message : `${message}; ${REBUILD}`;
}

/** The exit status of an API answer: 404 and refusals (401, 403, 429) are 1, a bad request 2, a server failure 3. */
export function exitCodeOfStatus(status: number): number {
  if (status < 400) return EXIT.ok;
  if (status === 400 || status === 405) return EXIT.usage;
  if (status >= 500) return EXIT.data;
  return EXIT.notFound;
}
