import type { CommandIo } from '../../../core/command.ts';
import type { Command } from 'commander';
import type { HealthScoreRecord } from '../../answers/health-scores.ts';
import { getJson, withApi } from '../api-client.ts';
import { CliError } from '../errors.ts';
import { qualityNotes, table } from '../format.ts';
import { listOptions, printList, type ListOptions } from '../listing.ts';
import { chooseFormat, emit, note, pickColumns } from '../output.ts';
import { SCORE_RECORD_FIELDS } from './scores.ts';
import { COMPONENT_COLUMNS } from '../../../core/components.ts';
import { routes as compareRoutes } from '../../api/compare.ts';

const SHOWN = ['healthscore', 'grade', 'label', ...COMPONENT_COLUMNS, 'city', 'state'];
const RECORDS = {
  noun: ['ZIP code', 'ZIP codes'] as [string, string],
  tableColumns: ['zip_code', ...SHOWN].map((key) => ({ key })),
  fields: SCORE_RECORD_FIELDS,
};

/** `hcas compare ZIP ZIP...`: score records side by side, one column per ZIP on a terminal. */
export function registerCompare(program: Command, io: CommandIo): void {
  const command = program
    .command('compare')
    .description('Compare the scores of 2 to 10 ZIP codes side by side')
    .argument('<zips...>', '5-digit ZIP codes')
    .option('--score-type <id|slug>', 'score type id (1-11) or slug (default: overall)');
  listOptions(command, { json: "print the API's JSON" })
    .addHelpText('after', '\nExamples:\n  hcas compare 10001 94110 02903\n  hcas compare 10001 94110 --score-type asthma --csv')
    .action(async (zips: string[], options: ListOptions & { scoreType?: string }) => {
      const format = chooseFormat(options, io);
      if (zips.length < 2 || zips.length > 10) throw new CliError(`give 2 to 10 ZIP codes to compare, got ${zips.length}`);
      const query = new URLSearchParams({ zips: zips.join(',') });
      if (options.scoreType !== undefined) query.set('score_type', options.scoreType);
      await withApi(options.db, io.env, compareRoutes, async (api) => {
        const records = await getJson<HealthScoreRecord[]>(api, `compare/?${query}`, { zips: 'the ZIP codes', score_type: '--score-type' });
        const rows = records as unknown as Array<Record<string, unknown>>;
        if (format !== 'table') return printList(io, RECORDS, rows, options);
        // Fields down, ZIP codes across: the way a comparison reads.
        const fields = pickColumns(
          options.fields,
          SCORE_RECORD_FIELDS,
          SHOWN.map((key) => ({ key })),
        ).map((column) => column.key);
        const columns = [{ key: 'field' }, ...records.map((r) => ({ key: r.zip_code }))];
        await emit(
          io.stdout,
          table(
            fields.map((field) => ({ field, ...Object.fromEntries(rows.map((r) => [r.zip_code as string, r[field]])) })),
            columns,
          ),
        );
        for (const line of qualityNotes(records)) note(io, line);
      });
    });
}
