import * as param from '../http/params.ts';
import { type Context, type HandlerResult, type NoParams } from '../http/route.ts';
import { API_BASE_PATH } from './paths.ts';
import { noScore } from './health-scores.ts';
import { widgetSummary } from './widget-summary.ts';

/** The plan feature that turns the widget's branding off (decisions.md: Business adds the white-label widget). */
export const WHITE_LABEL_FEATURE = 'white_label_widget';

/** Where the widget's attribution links: the post that explains the score (relative to the API's origin). */
export const ATTRIBUTION = { text: 'Healthcare access score by hcas', url: `${API_BASE_PATH}blog/how-the-healthcare-access-score-works/` };

/** decisions.md, "Widget": any page may embed it, and browsers and CDNs may keep it for 24 hours. */
export const WIDGET_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Cache-Control': 'public, max-age=86400',
  // The body differs by the caller's plan (white_label), so a shared cache must key on the credentials.
  Vary: 'Authorization, X-API-Key',
};

export const widgetPath = { zip: param.zip };

/** `widget-score/{zip}/`: the overall score in the compact shape the embeddable widget renders. */
export function getWidgetScore({ params, queries, features }: Context<typeof widgetPath, NoParams>): HandlerResult {
  const record = queries.healthScores.byZip(params.zip, queries.scoreTypes.overall.id);
  if (!record) throw noScore(params.zip);
  const access = queries.access.byZip(params.zip);
  const hospitals = access?.hospitals_within_10_miles ?? 0;
  const clinicians = access?.primary_care_within_10_miles ?? 0;
  const nearestMiles = access?.nearest_hospital_miles ?? null;
  const body = {
    zip_code: record.zip_code,
    city: record.city,
    state: record.state,
    score: record.healthscore,
    label: record.label,
    grade: record.grade,
    color: record.color,
    summary: widgetSummary({ label: record.label, hospitals, clinicians, nearestHospitalMiles: nearestMiles }),
    nearest_hospital: access && access.nearest_hospital_id !== null && nearestMiles !== null
      ? { id: access.nearest_hospital_id, name: access.nearest_hospital_name ?? '', distance_miles: nearestMiles }
      : null,
    within_10_miles: { hospitals, primary_care_clinicians: clinicians },
    components: { people: record.people_score, provider: record.provider_score, hospital: record.hospital_score, travel: record.travel_score },
    report_url: `${API_BASE_PATH}health-scores/${record.zip_code}/`,
    white_label: features.has(WHITE_LABEL_FEATURE),
    attribution: ATTRIBUTION,
  };
  return { status: 200, body, headers: WIDGET_HEADERS };
}
