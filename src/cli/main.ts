import { Command, CommanderError } from 'commander';
import { processIo, type CommandEntry, type CommandIo } from '../../core/command.ts';
import { EXIT, FixableError } from '../../core/errors.ts';
import { withRebuildAdvice } from './errors.ts';

/** Commander's ways of ending that are not mistakes: help asked for. */
const HELP_CODES = new Set(['commander.helpDisplayed', 'commander.version']);

/**
 * Runs the `hcas` command line over a command table (bin/hcas.js passes the producers', the pipeline's and
 * the API's); returns the exit status (README, "Exit codes"). Everything is written through `io`: the
 * process's streams, or a test's. Only the module of the command named in `argv` is loaded; help, a missing
 * or an unknown command loads them all, so commander can list them or suggest one.
 */
export async function main(argv: string[], commands: readonly CommandEntry[], io: CommandIo = processIo()): Promise<number> {
  if (io.stdout === process.stdout) endQuietlyWhenOutputCloses();
  if (argv.length === 3 && (argv[2] === '--version' || argv[2] === '-V')) {
    const { versionText } = await import('./version.ts');
    io.stdout.write(versionText(io.env));
    return EXIT.ok;
  }
  const program = new Command('hcas')
    .description('Healthcare Access Scoring Service: build scores from public data and serve them as a JSON API')
    .option('-V, --version', 'print the version, and the database commands read by default with its build id')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // A terminal's width; otherwise commander's own 80 columns.
      getOutHelpWidth: () => (io.stdout.isTTY && io.stdout.columns) || 80,
      getErrHelpWidth: () => (io.stderr.isTTY && io.stderr.columns) || 80,
    })
    .showHelpAfterError('(run with --help for usage and an example)')
    .addHelpText(
      'after',
      '\nExit status: 0 ok, 1 not found or empty, 2 usage error, 3 data or database problem.\nEach command has examples: hcas COMMAND --help',
    );
  const named = commands.filter((entry) => entry.names.includes(argv[2]));
  for (const entry of named.length > 0 ? named : commands) (await entry.load())(program, io);
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) return HELP_CODES.has(error.code) ? EXIT.ok : EXIT.usage;
    if (error instanceof FixableError) {
      io.stderr.write(`hcas: ${error.message}\n`);
      return error.exitCode;
    }
    if (isClosedOutput(error)) return EXIT.ok;
    if (isDatabaseError(error)) {
      io.stderr.write(`hcas: ${withRebuildAdvice(`the database failed: ${(error as Error).message}`)}\n`);
      return EXIT.data;
    }
    // A failure nobody foresaw: its stack is for a bug report, and its status must not read as "not found" (1).
    io.stderr.write(
      `hcas: unexpected failure (please report it with this trace):\n${error instanceof Error ? error.stack : String(error)}\n`,
    );
    return EXIT.data;
  }
}

/**
 * A reader that stops early (`hcas export providers | head -1`) closes the pipe: the command ends there,
 * with status 0 and no stack trace, as `cat` does. Node ignores SIGPIPE, so the closed pipe arrives as an
 * EPIPE error on the stream.
 */
function endQuietlyWhenOutputCloses(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (isClosedOutput(error)) process.exit(EXIT.ok);
      throw error;
    });
  }
}

function isClosedOutput(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'EPIPE';
}

/** better-sqlite3's errors (a corrupt or truncated file) are a database problem, not a crash of hcas. */
function isDatabaseError(error: unknown): boolean {
  return error instanceof Error && error.name === 'SqliteError';
}
