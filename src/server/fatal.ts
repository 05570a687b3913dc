import { inspect } from 'node:util';
import { redactKeys } from '../auth/keys.ts';
import { isoTime, type LevelledLog } from './log.ts';

/** How long a crashing process waits for its log to be written before it ends anyway (a stuck disk or reader). */
export const FATAL_FLUSH_MS = 2_000;

/**
 * Makes an uncaught exception (or unhandled rejection) end the process as Node would, with the stack on
 * stderr and exit code 1, but only after the log has a `fatal` line for it and every line it holds is
 * written: the log writes in the background, so without this a crash would lose the lines of its last
 * moments. Any other exit (process.exit) writes the held lines synchronously. Returns the uninstaller.
 */
export function flushLogOnExit(log: LevelledLog): () => void {
  let ending = false;
  const fatal = (error: unknown) => {
    if (ending) return;
    ending = true;
    process.stderr.write(`${inspect(error)}\n`);
    const stack = error instanceof Error ? (error.stack ?? String(error)) : inspect(error);
    log({ time: isoTime(), level: 'error', event: 'fatal', pid: process.pid, error: redactKeys(stack) });
    const exit = () => process.exit(1);
    setTimeout(exit, FATAL_FLUSH_MS);
    log.close().then(exit, exit);
  };
  const exiting = () => log.flushSync();
  process.on('uncaughtException', fatal);
  process.on('exit', exiting);
  return () => {
    process.off('uncaughtException', fatal);
    process.off('exit', exiting);
  };
}
