import type { ParamSpecs, ParamValues } from '../http/params.ts';
import type { HandlerContext } from '../http/route.ts';
import type { Queries } from '../query/index.ts';

/** What a handler of this API sees, typed from its path and query specs: the values and the build's queries. */
export type Context<P extends ParamSpecs, Q extends ParamSpecs> = HandlerContext<ParamValues<P>, ParamValues<Q>, Queries>;
