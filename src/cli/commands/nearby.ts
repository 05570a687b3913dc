import type { Command } from 'commander';
import type { NearbyEntry } from '../../query/nearby.ts';
import { DEFAULT_DATABASE, getJson, openApi } from '../api-client.ts';
import { csv, json, outputFormat, table, type OutputOptions } from '../format.ts';

const COLUMNS = [
  { key: 'zip_code' }, { key: 'city' }, { key: 'state' }, { key: 'distance_miles' }, { key: 'healthscore' }, { key: 'label' },
];

/** `hcas nearby ZIP`: scored ZIPs around a ZIP, nearest first. */
export function registerNearby(program: Command): void {
  program
    .command('nearby')
    .description('List the scored ZIP codes nearest to a ZIP code (great-circle miles), nearest first')
    .argument('<zip>', '5-digit ZIP code')
    .option('--radius <miles>', 'search radius in miles, at most 100 (default 10)')
    .option('--limit <n>', 'at most this many ZIP codes, 1-50 (default 10)')
    .option('--db <file>', 'database to read', DEFAULT_DATABASE)
    .option('--json', 'print JSON')
    .option('--csv', 'print CSV')
    .addHelpText('after', '\nExamples:\n  hcas nearby 10001\n  hcas nearby 10001 --radius 25 --limit 10 --csv')
    .action(async (zip: string, options: OutputOptions & { db: string; radius?: string; limit?: string }) => {
      const format = outputFormat(options);
      const query = new URLSearchParams();
      if (options.radius !== undefined) query.set('radius', options.radius);
      if (options.limit !== undefined) query.set('limit', options.limit);
      const api = openApi(options.db);
      try {
        const path = `health-scores/${encodeURIComponent(zip)}/nearby/${query.size ? `?${query}` : ''}`;
        const entries = await getJson<NearbyEntry[]>(api, path, { zip: 'the ZIP argument', radius: '--radius', limit: '--limit' });
        const rows = entries as unknown as Array<Record<string, unknown>>;
        const render = { table: () => table(rows, COLUMNS), json: () => json(entries), csv: () => csv(rows, COLUMNS) };
        process.stdout.write(render[format]());
      } finally {
        api.retire();
      }
    });
}
