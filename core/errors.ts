/**
 * An error whose message tells the person at the command line what to fix: `hcas` prints `hcas: MESSAGE`
 * without a stack and exits with `exitCode`. The pipeline's BuildError and the CLI's CliError are kinds of it,
 * so the command line recognises both without either side importing the other.
 */
export class FixableError extends Error {
  override name = 'FixableError';
  readonly exitCode: number;

  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}
