import { ApiError, notFound } from '../http/errors.ts';
import type { HandlerContext, HandlerResult } from '../http/route.ts';
import type { Queries } from '../query/index.ts';
import type { ZipAlias } from '../query/zip-aliases.ts';
import { API_BASE } from './paths.ts';

function lookupOf(alias: ZipAlias) {
  const kind = alias.zip_type ? ` (${alias.zip_type})` : '';
  return {
    requested: alias.zip_code,
    answered: alias.zcta,
    zip_type: alias.zip_type,
    note: `ZIP code ${alias.zip_code}${kind} has no area of its own: this is the record of ZIP code ${alias.zcta}, the area it lies in`,
  };
}

type ZipHandler<Q> = (context: HandlerContext<{ zip: string }, Q, Queries>) => HandlerResult;

/**
 * A `{zip}` handler that answers a PO-box or single-address ZIP code (10008) with the record of the ZIP code
 * it lies in (10007), saying so in `zip_lookup`; any other 404 stands.
 */
export function answeringZipAliases<Q>(handle: ZipHandler<Q>): ZipHandler<Q> {
  return (context) => {
    try {
      return handle(context);
    } catch (error) {
      const alias = aliasOf(error, context);
      const result = handle({ ...context, params: { ...context.params, zip: alias.zcta } });
      return { ...result, body: { ...(result.body as object), zip_lookup: lookupOf(alias) } };
    }
  };
}

/**
 * A `{zip}` handler whose answer is a list, which has no room to say it is another ZIP code's: a PO-box or
 * single-address ZIP code gets a 404 that names the ZIP code it lies in and the path to ask.
 */
export function pointingAtZipAliases<Q>(handle: ZipHandler<Q>, pathAfterZip: string): ZipHandler<Q> {
  return (context) => {
    try {
      return handle(context);
    } catch (error) {
      const alias = aliasOf(error, context);
      const kind = alias.zip_type ? ` (${alias.zip_type})` : '';
      throw notFound(
        `No health score for ZIP code ${alias.zip_code}: it has no area of its own${kind}; ask ${API_BASE}health-scores/${alias.zcta}/${pathAfterZip} for ZIP code ${alias.zcta}, the area it lies in`,
      );
    }
  };
}

/** The alias of the ZIP asked when `error` is the handler's 404 and the crosswalk has one; else `error` again. */
function aliasOf(error: unknown, context: HandlerContext<{ zip: string }, unknown, Queries>): ZipAlias {
  if (!(error instanceof ApiError) || error.status !== 404) throw error;
  const alias = context.queries.zipAliases.of(context.params.zip);
  if (!alias) throw error;
  return alias;
}
