import { Gate, type Responder } from '../auth/gate.ts';
import { MemoryStore } from '../auth/memory-store.ts';
import type { ApiRequest } from '../http/dispatcher.ts';
import type { ApiResponse } from '../http/response.ts';
import { CliError } from './errors.ts';
import { accessFor, openLimits } from './limits.ts';
import type { LimitsCliOptions } from './limits-options.ts';

/** The gate `hcas get` answers through with `--key` or `--anonymous`. */
export interface LocalGate {
  respond(api: Responder, request: ApiRequest): Promise<ApiResponse>;
  close(): Promise<void>;
}

/**
 * The caller `hcas get` stands for is on this machine, as the server sees a call from it: its refusals say what
 * the machine's owner can do (`hcas get` without `--key`, `--loopback-unmetered`), as the server's do. Calls are
 * never counted here, so the address only words the answers.
 */
const onThisMachine = (request: ApiRequest) => ({ ...request, remoteAddress: '127.0.0.1' });

/**
 * `--key`: the real state (the key's plan, its quota read but never counted). `--anonymous`: an empty
 * in-memory state, so the answer is an anonymous caller's with calls left; no state file is opened.
 */
export async function localGate(options: LimitsCliOptions & { key?: string }, env: NodeJS.ProcessEnv): Promise<LocalGate> {
  if (options.key === undefined) {
    const gate = new Gate({ store: new MemoryStore(), access: accessFor(options, env), countCalls: false });
    return { respond: async (api, request) => (await gate.respond(api, onThisMachine(request))).response, close: () => gate.close() };
  }
  const limits = await openLimits(options, env, { countCalls: false });
  if (limits.gate.status().rate_limits.status === 'degraded') {
    await limits.close();
    throw new CliError(
      `the key state (${limits.store.location}) did not answer, so --key cannot be checked; start Redis or unset REDIS_URL`,
    );
  }
  return {
    respond: async (api, request) => (await limits.gate.respond(api, onThisMachine(request))).response,
    close: () => limits.close(),
  };
}
