import type { CommandIo } from '../../../core/command.ts';
import type { Command } from 'commander';
import type { HealthScoreRecord } from '../../answers/health-scores.ts';
import { DB_HELP, getJson, openApi } from '../api-client.ts';
import { chooseFormat, outputOptions, printRecord, type OutputFlags } from '../output.ts';

/** `hcas score ZIP`: one ZIP's overall health score record. */
export function registerScore(program: Command, io: CommandIo): void {
  const command = program
    .command('score')
    .description('Show the overall health score record of a ZIP code')
    .argument('<zip>', '5-digit ZIP code (or ZIP+4)')
    .option('--db <file>', DB_HELP);
  outputOptions(command, { json: 'print the record as JSON' })
    .addHelpText('after', '\nExamples:\n  hcas score 10001\n  hcas score 02903 --json\n  hcas score 10001 --fields healthscore,grade,label')
    .action(async (zip: string, options: OutputFlags & { db?: string }) => {
      const format = chooseFormat(options, io);
      const api = openApi(options.db, io.env);
      try {
        const record = await getJson<HealthScoreRecord & Record<string, unknown>>(api, `health-scores/${encodeURIComponent(zip)}/`, {
          zip: 'the ZIP argument',
        });
        await printRecord(io, record, format, options.fields);
      } finally {
        api.retire();
      }
    });
}
