import { WidgetScore } from '../answers/widget.ts';
import { withZipLookup } from '../answers/zip-lookup.ts';
import { ref, type JsonSchema } from '../http/json-schema.ts';
import { MAP_PATH } from '../map/page.ts';
import { NO_PARAMS, route, type HandlerResult, type HeaderDoc, type NoParams, type Route } from '../http/route.ts';
import type { Context } from './context.ts';
import { noScore } from './health-scores.ts';
import { zip } from './params.ts';
import { API_BASE } from './paths.ts';
import { widgetSummary } from './widget-summary.ts';
import { answeringZipAliases } from './zip-lookup.ts';
import { COMPONENTS, type Component, componentColumn } from '../../core/components.ts';

const tag = { name: 'Widget', description: 'The compact score the embeddable widget shows (CORS-enabled, cacheable for 24 hours).' };

/** The plan feature that turns the widget's branding off (decisions.md: Business adds the white-label widget). */
export const WHITE_LABEL_FEATURE = 'white_label_widget';

/** Where the widget's attribution links: the post that explains the score (relative to the API's origin). */
export const ATTRIBUTION = { text: 'Healthcare access score by hcas', url: `${API_BASE}blog/how-the-healthcare-access-score-works/` };

/** decisions.md, "Widget": any page may embed it, and browsers and CDNs may keep it for 24 hours. */
export const WIDGET_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Cache-Control': 'public, max-age=86400',
  // The body differs by the caller's plan (white_label), so a shared cache must key on the credentials.
  Vary: 'Authorization, X-API-Key',
};

const widgetPath = { zip };

/** `widget-score/{zip}/`: the overall score in the compact shape the embeddable widget renders. */
function getWidgetScore({ params, queries, features }: Context<typeof widgetPath, NoParams>): HandlerResult {
  const found = queries.healthScores.byZip(params.zip, queries.scoreTypes.overall.id);
  if (!found) throw noScore(params.zip);
  const access = queries.access.byZip(params.zip);
  const hospitals = access?.hospitals_within_10_miles ?? 0;
  // Unknown (null) when the build has no provider component: never a made-up zero.
  const clinicians = access ? access.primary_care_within_10_miles : 0;
  const nearestMiles = access?.nearest_hospital_miles ?? null;
  const body = {
    zip_code: found.zip_code,
    city: found.city,
    state: found.state,
    score: found.healthscore,
    label: found.label,
    grade: found.grade,
    color: found.color,
    summary: widgetSummary({ label: found.label, hospitals, clinicians, nearestHospitalMiles: nearestMiles }),
    nearest_hospital:
      access && access.nearest_hospital_id !== null && nearestMiles !== null
        ? { id: access.nearest_hospital_id, name: access.nearest_hospital_name ?? '', distance_miles: nearestMiles }
        : null,
    within_10_miles: { hospitals, primary_care_clinicians: clinicians },
    components: Object.fromEntries(COMPONENTS.map((c) => [c, found[componentColumn(c)]])) as Record<Component, number | null>,
    data_quality: found.data_quality,
    report_url: `${API_BASE}health-scores/${found.zip_code}/`,
    map_url: `${MAP_PATH}#zip=${found.zip_code}`,
    white_label: features.has(WHITE_LABEL_FEATURE),
    attribution: ATTRIBUTION,
  };
  return { status: 200, body, headers: WIDGET_HEADERS };
}

/** Headers of the widget's 200 (decisions.md, "Widget"). */
const WIDGET_RESPONSE_HEADERS: Record<string, HeaderDoc> = {
  'Cache-Control': {
    description: '`public, max-age=86400`: browsers and CDNs may keep the answer for 24 hours.',
    schema: { type: 'string', const: 'public, max-age=86400' },
  },
  'Access-Control-Allow-Origin': { description: '`*`: any page may embed the widget.', schema: { type: 'string', const: '*' } },
  Vary: { description: 'The answer differs by credentials (white-label plans).', schema: { type: 'string' } },
};

/** The answer's schema (openapi.json `components/schemas`). */
export const schemas: Record<string, JsonSchema> = { WidgetScore: withZipLookup(WidgetScore) };

export const routes: readonly Route[] = [
  route({
    path: `${API_BASE}widget-score/:zip/`,
    exported: { write: 'per-key', keys: 'zips' },
    kind: 'lookup',
    byFeatures: true,
    summary: 'The overall score of one ZIP code in the compact shape of the embeddable widget (CORS, cacheable 24 hours)',
    tag,
    pathParams: widgetPath,
    query: NO_PARAMS,
    response: {
      description: 'The widget score',
      schema: ref('WidgetScore'),
      notFound: 'no health score for the ZIP code',
      headers: WIDGET_RESPONSE_HEADERS,
    },
    handle: answeringZipAliases(getWidgetScore),
  }),
];
