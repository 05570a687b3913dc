// A server process for the request log's tests: the real `runServer` and its default log (stdout, written
// in the background) with one extra route, `test/crash/`, that answers and then throws outside any request
// (an uncaught exception, as a bug in a timer would). The key in the error's message must be redacted.
// Usage: node bin/run-ts.js test/helpers/crash-server.ts --db FILE
import { runServer } from '../../src/server/cluster.ts';
import { NO_PARAMS, ok, route } from '../../src/http/route.ts';
import { ROUTES } from '../../src/api/index.ts';

/** The key the crash's message carries (well-formed, so redaction applies). */
export const CRASH_KEY = `hcas_live_${'C'.repeat(32)}`;

const crash = route({
  path: '/api/v1/test/crash/',
  exported: { write: 'server', why: 'a test route' },
  kind: 'lookup',
  summary: 'Test only: answers, then throws an uncaught exception 20 ms later',
  pathParams: NO_PARAMS,
  query: NO_PARAMS,
  handle() {
    setTimeout(() => {
      throw new Error(`test crash while holding ${CRASH_KEY}`);
    }, 20);
    return ok({ crashing: true });
  },
});

if (process.argv.includes('--db')) {
  const db = process.argv[process.argv.indexOf('--db') + 1];
  await runServer({ db, port: 0, host: '127.0.0.1', watch: false, api: { routes: [...ROUTES, crash] } });
}
