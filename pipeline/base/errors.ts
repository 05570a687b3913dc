import { EXIT, FixableError } from '../../core/errors.ts';

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

/**
 * Thrown by a layout's row parser: the row is written to the rejects file with this reason and a stable code
 * to group by (`rejectCode(reason)` unless the reason's text varies beyond numbers and quoted values).
 */
export class RowReject extends Error {
  override name = 'RowReject';
  readonly kind: RejectKind;
  readonly code: string | undefined;

  constructor(reason: string, kind: RejectKind = 'invalid', code?: string) {
    // Hundreds of thousands are thrown in a national build (every NPPES organisation row): skip the stack trace.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(reason);
    Error.stackTraceLimit = limit;
    this.kind = kind;
    this.code = code;
  }
}

/**
 * Why a row did not land. Only `invalid` rows count toward the reject ratio: `excluded` rows are valid
 * but outside what we score (organisations, non-US), `superseded` rows were replaced by a later row.
 */
export type RejectKind = 'invalid' | 'excluded' | 'superseded';

/**
 * The stable code of a reject reason, to group rejects by (`deactivated_npi`, `zip_is_listed_twice`): its
 * words before any explanation (a colon, semicolon, parenthesis or ", got"), without quoted values and
 * numbers (RUCA1 is a word, 390119 a number), in snake case. Reasons whose wording varies otherwise pass their own code to RowReject.
 */
export function rejectCode(reason: string): string {
  const head = reason.split(/:|;| \(|, got /)[0];
  const words = head
    .replace(/"(?:[^"\\]|\\.)*"/g, ' ')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '' && !/^\d+$/.test(word));
  return words.join('_') || 'unspecified';
}
