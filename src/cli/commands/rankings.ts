import type { Command } from 'commander';
import { CliError } from '../errors.ts';
import { DEFAULT_DATABASE, getJson, openApi } from '../api-client.ts';
import { csv, json, outputFormat, table, type Column, type OutputOptions } from '../format.ts';

const KINDS: Record<string, { columns: Column[]; csvColumns: Column[] }> = {
  states: {
    columns: [{ key: 'rank' }, { key: 'state_code' }, { key: 'state' }, { key: 'avg_score' }, { key: 'grade' }, { key: 'label' }, { key: 'zip_count' }],
    csvColumns: ['rank', 'state', 'state_code', 'avg_score', 'label', 'grade', 'color', 'zip_count'].map((key) => ({ key })),
  },
  hospitals: {
    columns: [{ key: 'rank' }, { key: 'id' }, { key: 'facility_name', heading: 'name' }, { key: 'facility_type', heading: 'type' }, { key: 'city_name', heading: 'city' },
      { key: 'state_code', heading: 'state' }, { key: 'facility_rating', heading: 'rating' }, { key: 'emergency_services', heading: 'emergency' }],
    csvColumns: ['rank', 'id', 'facility_name', 'facility_type', 'city_name', 'state_name', 'state_code', 'facility_rating', 'emergency_services', 'telehealth'].map((key) => ({ key })),
  },
};

/** `hcas rankings states|hospitals`: the state or hospital ranking. */
export function registerRankings(program: Command): void {
  program
    .command('rankings')
    .description('Rank states by average health score, or rated hospitals by CMS star rating')
    .argument('<kind>', 'states or hospitals')
    .option('--state <code>', 'hospitals of one state (hospitals only)')
    .option('--db <file>', 'database to read', DEFAULT_DATABASE)
    .option('--json', 'print JSON')
    .option('--csv', 'print CSV')
    .addHelpText('after', '\nExamples:\n  hcas rankings states\n  hcas rankings hospitals --state TX\n  hcas rankings hospitals --csv > hospitals.csv')
    .action(async (kind: string, options: OutputOptions & { db: string; state?: string }) => {
      const format = outputFormat(options);
      const spec = KINDS[kind];
      if (!spec) throw new CliError(`the ranking must be states or hospitals, got ${kind}`);
      if (kind === 'states' && options.state !== undefined) throw new CliError('--state applies to hospitals only: hcas rankings hospitals --state TX');
      const query = options.state === undefined ? '' : `?${new URLSearchParams({ state: options.state })}`;
      const api = openApi(options.db);
      try {
        const rows = await getJson<Array<Record<string, unknown>>>(api, `rankings/${kind}/${query}`, { state: '--state' });
        const render = { table: () => table(rows, spec.columns), json: () => json(rows), csv: () => csv(rows, spec.csvColumns) };
        process.stdout.write(render[format]());
      } finally {
        api.retire();
      }
    });
}
