import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { CommandEntry, ProcessRuntime } from '../../core/command.ts';

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * The flags and environment the command in `argv` asks for (its entry's `runtime`) that this process lacks,
 * or null when it has them all, or the command asks for none. A flag the user gave (on the command line
 * or in NODE_OPTIONS) and a variable the user set count as present, whatever their value. A process started
 * under the inspector (--inspect...) runs the command itself: the debugger is attached to that process.
 */
export function missingRuntime(
  argv: readonly string[],
  commands: readonly CommandEntry[],
  execArgv: readonly string[] = process.execArgv,
  env: NodeJS.ProcessEnv = process.env,
): ProcessRuntime | null {
  const runtime = commands.find((entry) => entry.names.includes(argv[2]))?.runtime;
  if (!runtime || execArgv.some((flag) => flag.startsWith('--inspect'))) return null;
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].map((flag) => flag.split('=')[0]);
  const nodeFlags = runtime.nodeFlags.filter((flag) => !given.includes(flag.split('=')[0]));
  // Only a missing flag is worth a second process: variables alone (the C library's) are tuning, not a need.
  if (nodeFlags.length === 0) return null;
  return { nodeFlags, env: Object.fromEntries(Object.entries(runtime.env).filter(([name]) => env[name] === undefined)) };
}

/**
 * Runs this same command line again in a child Node process with the runtime's flags and environment
 * (V8 reads its heap flags only at startup), sharing standard input and output, and resolves to the exit
 * status to end with. Signals sent to this process go on to the child; a child ended by a signal ends
 * this process by the same signal, so a shell or a supervisor sees what happened.
 */
export function rerunWith(runtime: ProcessRuntime): Promise<number> {
  const child = spawn(process.execPath, [...process.execArgv, ...runtime.nodeFlags, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, ...runtime.env },
  });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      for (const name of FORWARDED_SIGNALS) process.off(name, forward);
      if (signal === null) return resolve(code ?? 1);
      process.kill(process.pid, signal);
      resolve(128 + (constants.signals[signal] ?? 0)); // if this process survives its own signal (a handler)
    });
  });
}
