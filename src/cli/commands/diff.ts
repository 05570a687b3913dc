import type { CommandIo } from '../../../core/command.ts';
import type { Command } from 'commander';
import { databaseFile } from '../../../core/dataset.ts';
import { diffBuilds, type DiffOptions } from '../../diff/index.ts';
import { DB_HELP } from '../api-client.ts';
import { diffDocument } from '../diff/document.ts';
import { asMarkdown, asText } from '../diff/render.ts';
import { CliError } from '../errors.ts';
import { emit } from '../output.ts';
import { json } from '../format.ts';

/** Exit status when the builds differ beyond the thresholds, as `diff` exits 1 when files differ (README, exit codes). */
const DIFFER = 1;

interface Flags {
  db?: string;
  scoreType?: string;
  top: string;
  minResidents?: string;
  by: string;
  maxShift: string;
  maxBandMoves: string;
  facilities: string;
  json?: boolean;
  markdown?: boolean;
}

/** `hcas diff OLD [NEW]`: what changed between two builds, and why (docs/DIFF.md). */
export function registerDiff(program: Command, io: CommandIo): void {
  program
    .command('diff')
    .description('Compare two builds: the inputs that differ, how the scores moved, and why each ZIP moved; exit 1 beyond the thresholds')
    .argument('<old>', 'the build to compare against (the one you serve, say)')
    .argument('[new]', 'the build to compare (default: --db, else $HCAS_DB, else dist-api/hcas.sqlite)')
    .option('--db <file>', `NEW when not given as an argument: ${DB_HELP}`)
    .option('--score-type <id|slug>', 'score type the scores and why parts describe (default: overall; every type is judged)')
    .option('--top <n|all>', 'explain the N ZIPs that moved most', '10')
    .option('--min-residents <n>', "leave ZIPs with fewer residents out of that list (default: NEW's small-population threshold, 100)")
    .option('--by <points|residents>', 'rank moved ZIPs by points, or by points times residents', 'points')
    .option('--max-shift <points>', 'the largest move of any score or component that still agrees', '0')
    .option('--max-band-moves <share>', 'the share of residents whose band may change and still agree: 1% or 0.01', '0')
    .option('--facilities <n>', 'list this many facility changes (the counts cover all)', '50')
    .option('--json', 'print the report as one JSON document (docs/DIFF.md describes it)')
    .option('--markdown', 'print the report as Markdown, for a pull request or a release note')
    .addHelpText(
      'after',
      '\nExit status: 0 the builds agree within the thresholds, 1 they do not, 2 usage, 3 a file that is missing, damaged or not a build.\n' +
        '\nExamples:\n' +
        '  hcas diff dist-api/hcas.sqlite                       # the default build against itself: nothing changed, status 0\n' +
        '  hcas diff dist-api/hcas.sqlite dist-api/hcas.sqlite --markdown > diff.md\n' +
        "  hcas diff dist-api/hcas.sqlite --json | jq '.scores.zips, .status'\n" +
        '  hcas diff dist-api/hcas.sqlite --max-shift 2 --max-band-moves 1% --top 20 --by residents',
    )
    .action(async (oldFile: string, newFile: string | undefined, flags: Flags) => {
      if (flags.json && flags.markdown) throw new CliError('choose one of --json and --markdown');
      if (newFile !== undefined && flags.db !== undefined) throw new CliError('give NEW either as an argument or with --db, not both');
      const options: DiffOptions = {
        scoreType: flags.scoreType,
        top: flags.top === 'all' ? Number.POSITIVE_INFINITY : whole('--top', flags.top),
        minResidents: flags.minResidents === undefined ? undefined : whole('--min-residents', flags.minResidents),
        rankBy: choice('--by', flags.by, ['points', 'residents'] as const),
        maxShift: points(flags.maxShift),
        maxBandMoves: bandShare(flags.maxBandMoves),
        facilityLimit: whole('--facilities', flags.facilities),
      };
      const report = diffBuilds(oldFile, newFile ?? databaseFile(flags.db, io.env), options);
      await emit(io.stdout, flags.json ? json(report) : flags.markdown ? asMarkdown(diffDocument(report)) : asText(diffDocument(report)));
      if (!report.status.agree) throw new CliError(`the builds differ beyond the thresholds: ${report.status.exceeded.join('; ')}`, DIFFER);
    });
}

function whole(flag: string, text: string): number {
  if (!/^\d{1,9}$/.test(text)) throw new CliError(`${flag} must be a whole number${flag === '--top' ? ' or all' : ''}, got ${text}`);
  return Number(text);
}

function points(text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0 || value > 100)
    throw new CliError(`--max-shift must be a number of points from 0 to 100, got ${text}`);
  return value;
}

/** `1%`, `0.5%` or a share `0.01`. */
function bandShare(text: string): number {
  const percent = text.endsWith('%');
  const value = Number(percent ? text.slice(0, -1) : text);
  const shareOf = percent ? value / 100 : value;
  if (text.trim() === '' || !Number.isFinite(value) || shareOf < 0 || shareOf > 1)
    throw new CliError(`--max-band-moves must be a percentage (1%) or a share from 0 to 1 (0.01), got ${text}`);
  return shareOf;
}

function choice<T extends string>(flag: string, text: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(text)) throw new CliError(`${flag} must be ${allowed.join(' or ')}, got ${text}`);
  return text as T;
}
