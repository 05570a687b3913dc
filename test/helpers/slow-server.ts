// A server process for lifecycle tests: the real `runServer` (signals, reload, shutdown) with one extra
// route, `test/slow/`, that answers after a delay and then reads the database, so a test can hold a
// request in flight across a reload or a SIGTERM. Usage: node bin/run-ts.js test/helpers/slow-server.ts --db FILE [--no-watch]
import { setTimeout as sleep } from 'node:timers/promises';
import { runServer } from '../../src/server/cluster.ts';
import { integer } from '../../src/http/params.ts';
import { NO_PARAMS, ok, route } from '../../src/http/route.ts';
import { ROUTES } from '../../src/api/index.ts';

const slow = route({
  path: '/api/v1/test/slow/',
  exported: { write: 'server', why: 'a test route' },
  summary: 'Test only: answers after `ms` milliseconds with the build id and a record read after the wait',
  pathParams: NO_PARAMS,
  query: { ms: integer(0, 60_000, 500), n: integer(0, 1_000_000_000, 0) },
  async handle({ query, queries }) {
    await sleep(query.ms);
    const record = queries.healthScores.byZip('02801', 1);
    return ok({ build_id: queries.meta.build_id, zip_code: record?.zip_code ?? null });
  },
});

const db = process.argv[process.argv.indexOf('--db') + 1];
await runServer({
  db,
  port: 0,
  host: '127.0.0.1',
  quiet: true,
  watch: !process.argv.includes('--no-watch'),
  api: { routes: [...ROUTES, slow] },
});
