import * as param from '../http/params.ts';
import { ok, type Context, type HandlerResult, type NoParams } from '../http/route.ts';

export const geojsonQuery = { state: param.state, min_score: param.score };

/** `health-scores/geojson/`: a FeatureCollection of ZIP points ([longitude, latitude]) with overall scores, by ZIP code. */
export function getGeojson({ query, queries }: Context<NoParams, typeof geojsonQuery>): HandlerResult {
  const points = queries.healthScores.points({ scoreTypeId: queries.scoreTypes.overall.id, state: query.state, minScore: query.min_score });
  return ok({
    type: 'FeatureCollection',
    features: points.map((point) => ({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [point.longitude, point.latitude] },
      properties: { zip_code: point.zip_code, healthscore: point.healthscore, label: point.label, color: point.color },
    })),
  });
}
