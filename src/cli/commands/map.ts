import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { CommandIo } from '../../../core/command.ts';
import { buildMap } from '../../map/data.ts';
import { mapSvg } from '../../map/svg.ts';
import { DB_HELP, openApi } from '../api-client.ts';
import { CliError, notFound } from '../errors.ts';
import { ALL_ROUTES } from '../../api/index.ts';

interface MapFlags {
  state?: string;
  scoreType?: string;
  by: string;
  width: string;
  out?: string;
  format?: string;
  db?: string;
}

/** `hcas map`: the map of the scores as an SVG or PNG picture, with its legend and source note, for a report. */
export function registerMap(program: Command, io: CommandIo): void {
  program
    .command('map')
    .description('Draw the map of the scores as SVG or PNG: the nation or a state, by ZIP code or county, with legend and sources')
    .option('--state <code>', 'two-letter state code (default: the nation, with its insets)')
    .option('--score-type <type>', 'score type id or slug (default: the overall score)')
    .option('--by <what>', 'zip (a dot per ZIP code) or county (the residents-weighted mean of its ZIP codes)', 'zip')
    .option('--width <pixels>', 'width of the picture in pixels, 400 to 4000', '1200')
    .option('--out <file>', 'write to this file (.svg or .png); default: standard output')
    .option('--format <format>', 'svg or png (default: from --out, else svg)')
    .option('--db <file>', DB_HELP)
    .addHelpText(
      'after',
      '\nExamples:\n  hcas map --out map.png\n  hcas map --state CO --by county --score-type asthma --width 800 > colorado-asthma.svg',
    )
    .action(async (flags: MapFlags) => {
      const format = formatOf(flags);
      const widthPx = Number(flags.width);
      if (!Number.isInteger(widthPx) || widthPx < 400 || widthPx > 4000)
        throw new CliError(`--width must be an integer from 400 to 4000, got ${flags.width}`);
      if (flags.by !== 'zip' && flags.by !== 'county') throw new CliError(`--by must be zip or county, got ${flags.by}`);
      const state = flags.state?.toUpperCase();
      if (state !== undefined && !/^[A-Z]{2}$/.test(state))
        throw new CliError(`--state must be a two-letter state code such as NY, got ${flags.state}`);
      if (format === 'png' && flags.out === undefined && io.stdout.isTTY) {
        throw new CliError('a PNG is binary: write it to a file with --out map.png, or redirect it (hcas map --format png > map.png)');
      }
      const api = openApi(flags.db, io.env, ALL_ROUTES);
      try {
        const { queries } = api;
        const type = flags.scoreType === undefined ? queries.scoreTypes.overall : queries.scoreTypes.find(flags.scoreType);
        if (type === undefined) {
          const slugs = queries.scoreTypes.all.map((each) => each.slug).join(', ');
          throw new CliError(
            `--score-type must be a score type id from 1 to ${queries.scoreTypes.all.length} or one of ${slugs}, got ${flags.scoreType}`,
          );
        }
        const map = await buildMap(queries);
        if (state !== undefined && !map.states.some((each) => each.code === state)) {
          throw notFound(`no ZIP code of state ${state} in this build (hcas states lists them)`);
        }
        const madeBy = [
          'hcas map',
          state && `--state ${state}`,
          flags.scoreType && `--score-type ${type.slug}`,
          flags.by === 'county' && '--by county',
        ]
          .filter(Boolean)
          .join(' ');
        const svg = mapSvg(map, await map.scores(type.id), { state, scoreTypeId: type.id, by: flags.by, widthPx, madeBy });
        // Loaded only for a PNG: the renderer is a native module an SVG does not need.
        const bytes = format === 'png' ? (await import('../../map/png.ts')).svgToPng(svg) : Buffer.from(svg);
        if (flags.out === undefined) io.stdout.write(bytes);
        else {
          writeFileSync(flags.out, bytes);
          io.stderr.write(`wrote ${flags.out} (${format.toUpperCase()}, ${bytes.length.toLocaleString('en-US')} bytes)\n`);
        }
      } finally {
        api.retire();
      }
    });
}

function formatOf(flags: MapFlags): 'svg' | 'png' {
  const fromName = flags.out === undefined ? undefined : /\.(svg|png)$/i.exec(flags.out)?.[1].toLowerCase();
  if (flags.out !== undefined && fromName === undefined && flags.format === undefined) {
    throw new CliError(`--out ${flags.out} names no picture format: end it in .svg or .png, or add --format svg|png`);
  }
  const format = flags.format?.toLowerCase() ?? fromName ?? 'svg';
  if (format !== 'svg' && format !== 'png') throw new CliError(`--format must be svg or png, got ${flags.format}`);
  if (fromName !== undefined && flags.format !== undefined && fromName !== format) {
    throw new CliError(`--out ${flags.out} and --format ${flags.format} disagree: give one of them`);
  }
  return format;
}
