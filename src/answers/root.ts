import { arrayOf, record, type Infer } from '../http/json-schema.ts';
import { buildId, string } from './fields.ts';

/** The API root (`/api/v1/` and `/`): the build it serves, where the API is described, and every endpoint. */
export const ApiRoot = record(
  {
    name: string,
    version: string,
    build: record({ build_id: buildId, built_at: string, dataset: string, meta: string }),
    openapi: string,
    documentation: string,
    endpoints: arrayOf(record({ path: string, summary: string })),
  },
  'The API root: the build it serves, where the API is described, and every endpoint.',
);
export type ApiRoot = Infer<typeof ApiRoot>;
