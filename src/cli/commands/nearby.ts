import type { CommandIo } from '../../../core/command.ts';
import type { Command } from 'commander';
import { NearbyEntry } from '../../answers/health-scores.ts';
import { getJson, openApi } from '../api-client.ts';
import { fieldsInOrder, listOptions, printList, type ListOptions } from '../listing.ts';

/** The distance beside the place, before its score. */
const FIELDS = fieldsInOrder(NearbyEntry, ['zip_code', 'city', 'state', 'distance_miles', 'healthscore', 'label']);
const NEARBY = { noun: ['ZIP code', 'ZIP codes'] as [string, string], tableColumns: FIELDS.map((key) => ({ key })), fields: FIELDS };

/** `hcas nearby ZIP`: scored ZIPs around a ZIP, nearest first. */
export function registerNearby(program: Command, io: CommandIo): void {
  const command = program
    .command('nearby')
    .description('List the scored ZIP codes nearest to a ZIP code (great-circle miles), nearest first')
    .argument('<zip>', '5-digit ZIP code (or ZIP+4)')
    .option('--radius <miles>', 'search radius in miles, at most 100 (default 10)')
    .option('--limit <n>', 'at most this many ZIP codes, 1-50 (default 10)');
  listOptions(command)
    .addHelpText('after', '\nExamples:\n  hcas nearby 10001\n  hcas nearby 10001 --radius 25 --limit 10 --csv')
    .action(async (zip: string, options: ListOptions & { radius?: string; limit?: string }) => {
      const query = new URLSearchParams();
      if (options.radius !== undefined) query.set('radius', options.radius);
      if (options.limit !== undefined) query.set('limit', options.limit);
      const api = openApi(options.db, io.env);
      try {
        const path = `health-scores/${encodeURIComponent(zip)}/nearby/${query.size ? `?${query}` : ''}`;
        const entries = await getJson<NearbyEntry[]>(api, path, { zip: 'the ZIP argument', radius: '--radius', limit: '--limit' });
        await printList(io, NEARBY, entries as unknown as Array<Record<string, unknown>>, options);
      } finally {
        api.retire();
      }
    });
}
