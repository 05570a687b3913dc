import { EXIT, FixableError } from '../core/errors.ts';

/**
 * A build (or download) failure whose message tells the data engineer what to fix; the CLI prints it without
 * a stack and exits 3, the status of data problems.
 */
export class BuildError extends FixableError {
  override name = 'BuildError';

  constructor(message: string) {
    super(message, EXIT.data);
  }
}

/** Thrown by a layout's row parser: the row is written to the rejects file with this reason. */
export class RowReject extends Error {
  override name = 'RowReject';
  readonly kind: RejectKind;

  constructor(reason: string, kind: RejectKind = 'invalid') {
    // Hundreds of thousands are thrown in a national build (every NPPES organisation row): skip the stack trace.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(reason);
    Error.stackTraceLimit = limit;
    this.kind = kind;
  }
}

/**
 * Why a row did not land. Only `invalid` rows count toward the reject ratio: `excluded` rows are valid
 * but outside what we score (organisations, non-US), `superseded` rows were replaced by a later row.
 */
export type RejectKind = 'invalid' | 'excluded' | 'superseded';
