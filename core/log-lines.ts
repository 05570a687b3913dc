import path from 'node:path';
import type { OutputStream } from './command.ts';
import type { ProgressMode } from './progress.ts';

/** How a long command prints its log lines and its closing summary: text for people, or JSON lines. */
export interface LogLines {
  line(text: string): void;
  /** The last line: its text for people, its fields for machines. */
  summary(text: string, fields: Record<string, unknown>): void;
}

/** Log lines on `out` (the command's stdout), as text or (with `--log-format json`) one JSON object each, stamped with the time. */
export function logLines(mode: ProgressMode, out: OutputStream): LogLines {
  if (mode !== 'json') return { line: (text) => void out.write(`${text}\n`), summary: (text) => void out.write(`${text}\n`) };
  const write = (fields: Record<string, unknown>) => out.write(`${JSON.stringify({ time: new Date().toISOString(), ...fields })}\n`);
  return { line: (text) => write({ event: 'log', message: text.trim() }), summary: (text, fields) => write({ ...fields, message: text }) };
}

/** A path as the person typed or would type it: relative to the working directory when inside it. */
export function shownPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : path.resolve(file);
}
