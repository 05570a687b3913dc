import type { Command } from 'commander';
import type { Envelope } from '../../http/pagination.ts';
import type { TviListEntry, TviRecord } from '../../query/tvi.ts';
import { DEFAULT_DATABASE, getJson, openApi } from '../api-client.ts';
import { allColumns, csv, json, outputFormat, recordTable, table, type OutputOptions } from '../format.ts';

const TOP_COLUMNS = ['zip_code', 'city', 'state', 'tvi_score', 'tvi_tier', 'zero_vehicle_pct', 'nearest_hospital_miles'].map((key) => ({ key }));

/** `hcas tvi ZIP`: one ZIP's Transportation Vulnerability Index; `hcas tvi --top`: the most vulnerable ZIPs. */
export function registerTvi(program: Command): void {
  program
    .command('tvi')
    .description('Show the Transportation Vulnerability Index of a ZIP code, or with --top the most vulnerable ZIP codes')
    .argument('[zip]', '5-digit ZIP code')
    .option('--top', 'list ZIP codes by TVI, most vulnerable first (one page)')
    .option('--state <code>', 'with --top: two-letter state code')
    .option('--tier <name>', 'with --top: CRITICAL, HIGH, MODERATE, LOW or MINIMAL')
    .option('--page <n>', 'with --top: page number from 1')
    .option('--page-size <n>', 'with --top: ZIP codes per page, 1-100 (default 20)')
    .option('--db <file>', 'database to read', DEFAULT_DATABASE)
    .option('--json', 'print JSON')
    .option('--csv', 'print CSV')
    .addHelpText('after', '\nExamples:\n  hcas tvi 10001\n  hcas tvi --top --state NY --tier critical --csv > ny-critical.csv')
    .action(async (zip: string | undefined, options: OutputOptions & { db: string; top?: boolean; state?: string; tier?: string; page?: string; pageSize?: string }) => {
      const format = outputFormat(options);
      const api = openApi(options.db);
      try {
        if (options.top || zip === undefined) {
          const query = new URLSearchParams();
          for (const [name, value] of [['state', options.state], ['tier', options.tier], ['page', options.page], ['page_size', options.pageSize]]) {
            if (value !== undefined) query.set(name!, value);
          }
          const flags = { state: '--state', tier: '--tier', page_size: '--page-size', page: '--page' };
          const page = await getJson<Envelope<TviListEntry>>(api, `tvi/top-vulnerable/${query.size ? `?${query}` : ''}`, flags);
          const rows = page.results as unknown as Array<Record<string, unknown>>;
          const render = { table: () => `${table(rows, TOP_COLUMNS)}${page.count} matching ZIP codes${page.next ? '; more with --page' : ''}\n`, json: () => json(page), csv: () => csv(rows, TOP_COLUMNS) };
          process.stdout.write(render[format]());
          return;
        }
        const record = await getJson<TviRecord & Record<string, unknown>>(api, `tvi/${encodeURIComponent(zip)}/`, { zip: 'the ZIP argument' });
        const render = { table: () => recordTable(record), json: () => json(record), csv: () => csv([record], allColumns(record)) };
        process.stdout.write(render[format]());
      } finally {
        api.retire();
      }
    });
}
