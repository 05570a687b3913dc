import type { CommandIo } from '../../core/command.ts';
import type { Route } from '../http/route.ts';
import { getJson, withApi } from './api-client.ts';
import { chooseFormat, type OutputFlags, printRecord } from './output.ts';

/**
 * What a record command does (`hcas score ZIP`, `hcas tvi ZIP`, `hcas facility ID`, `hcas provider NPI`): one
 * answer of the API at `path`, printed as a record in the format the flags choose. `argument` names the
 * command's argument for the API's parameter in a refusal (`{ zip: 'the ZIP argument' }`); `routes` are the
 * endpoint group's that answers it, so a one-shot lookup loads that group's code alone.
 */
export async function showRecord(
  io: CommandIo,
  options: OutputFlags & { db?: string },
  path: string,
  argument: Record<string, string>,
  routes: readonly Route[],
): Promise<void> {
  // The format first: a bad --fields or format flag is refused before the build is opened.
  const format = chooseFormat(options, io);
  await withApi(options.db, io.env, routes, async (api) =>
    printRecord(io, await getJson<Record<string, unknown>>(api, path, argument), format, options.fields),
  );
}
