import type { CommandIo } from '../../../core/command.ts';
import type { Command } from 'commander';
import { getJson, withApi } from '../api-client.ts';
import { CliError } from '../errors.ts';
import { HospitalRanking } from '../../answers/facilities.ts';
import { StateRanking } from '../../answers/reference.ts';
import { fieldsOf } from '../../http/json-schema.ts';
import { fieldsInOrder, listOptions, printList, type ListOptions } from '../listing.ts';
import { FACILITY_COLUMNS } from './facilities.ts';
import { routes as rankingsRoutes } from '../../api/rankings.ts';

const KINDS = {
  states: {
    noun: ['state', 'states'] as [string, string],
    tableColumns: [
      { key: 'rank' },
      { key: 'state_code' },
      { key: 'state' },
      { key: 'avg_score' },
      { key: 'grade' },
      { key: 'label' },
      { key: 'zip_count' },
    ],
    fields: fieldsOf(StateRanking),
  },
  hospitals: {
    noun: ['hospital', 'hospitals'] as [string, string],
    tableColumns: [{ key: 'rank' }, ...FACILITY_COLUMNS],
    // The rank first, as a ranking reads.
    fields: fieldsInOrder(HospitalRanking, [
      'rank',
      'id',
      'facility_name',
      'facility_type',
      'city_name',
      'state_name',
      'state_code',
      'facility_rating',
      'emergency_services',
      'telehealth',
    ]),
  },
};

/** `hcas rankings states|hospitals`: the state or hospital ranking. */
export function registerRankings(program: Command, io: CommandIo): void {
  const command = program
    .command('rankings')
    .description('Rank states by average health score, or rated hospitals by CMS star rating')
    .argument('<kind>', 'states or hospitals')
    .option('--state <code>', 'hospitals of one state (hospitals only)');
  listOptions(command)
    .addHelpText(
      'after',
      '\nExamples:\n  hcas rankings states\n  hcas rankings hospitals --state TX\n  hcas rankings hospitals --csv > hospitals.csv',
    )
    .action(async (kind: string, options: ListOptions & { state?: string }) => {
      if (kind !== 'states' && kind !== 'hospitals') throw new CliError(`the ranking must be states or hospitals, got ${kind}`);
      if (kind === 'states' && options.state !== undefined)
        throw new CliError('--state applies to hospitals only: hcas rankings hospitals --state TX');
      const query = options.state === undefined ? '' : `?${new URLSearchParams({ state: options.state })}`;
      await withApi(options.db, io.env, rankingsRoutes, async (api) => {
        const rows = await getJson<Array<Record<string, unknown>>>(api, `rankings/${kind}/${query}`, { state: '--state' });
        await printList(io, KINDS[kind], rows, options);
      });
    });
}
