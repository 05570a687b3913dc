import type { CommandIo } from '../../../core/command.ts';
import type { Command } from 'commander';
import { DB_HELP } from '../api-client.ts';
import { outputOptions, type OutputFlags } from '../output.ts';
import { showRecord } from '../record.ts';
import { routes as healthScoresRoutes } from '../../api/health-scores.ts';

/** `hcas score ZIP`: one ZIP's overall health score record. */
export function registerScore(program: Command, io: CommandIo): void {
  const command = program
    .command('score')
    .description('Show the overall health score record of a ZIP code')
    .argument('<zip>', '5-digit ZIP code (or ZIP+4)')
    .option('--db <file>', DB_HELP);
  outputOptions(command, { json: 'print the record as JSON' })
    .addHelpText('after', '\nExamples:\n  hcas score 10001\n  hcas score 02903 --json\n  hcas score 10001 --fields healthscore,grade,label')
    .action((zip: string, options: OutputFlags & { db?: string }) =>
      showRecord(io, options, `health-scores/${encodeURIComponent(zip)}/`, { zip: 'the ZIP argument' }, healthScoresRoutes),
    );
}
