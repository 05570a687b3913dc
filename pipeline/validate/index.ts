import type { ScoredHospital } from '../facilities/hospitals.ts';
import type { ZipPlace } from '../geo/places.ts';
import { STATE_BY_FIPS } from '../geo/states.ts';
import type { Ingested } from '../ingest/index.ts';
import type { ZipScores } from '../score/index.ts';
import type { ValidationReport } from '../../core/validation.ts';
import { validationReport, type ValidationZip } from './report.ts';

export type { ValidationReport } from '../../core/validation.ts';

/**
 * The validation report of a build: its overall scores beside the independent measures the manifest
 * supplies (reference drive times, SVI, RUCA, NCHS classes, HUD residential addresses).
 */
export function validateBuild(
  places: ZipPlace[],
  scores: ZipScores[],
  hospitals: ScoredHospital[],
  data: Pick<Ingested, 'reference' | 'zctaRuca' | 'zipCounties'>,
): ValidationReport {
  const hospitalZips = new Set(hospitals.map((h) => h.zipIndex));
  const zips: ValidationZip[] = places.map((p, i) => {
    const overall = scores[i].byType[0];
    return {
      zip: p.zip,
      city: p.city,
      state: p.state,
      population: Math.max(0, p.population ?? 0),
      ranked: !scores[i].smallPopulation,
      urbanRuralCode: p.urbanRuralCode,
      ruca: data.zctaRuca.get(p.zip) ?? null,
      svi: data.reference.svi.get(p.zip) ?? null,
      healthscore: overall.healthscore,
      people: overall.people,
      provider: overall.provider,
      hospital: overall.hospital,
      travel: overall.travel,
      referenceHospitalMinutes: data.reference.hospitalDriveTimes.get(p.zip)?.minutes ?? null,
      hospitalInZip: hospitalZips.has(i),
      residentialState: residentialState(data.zipCounties.get(p.zip)),
    };
  });
  return validationReport(zips);
}

/** The state with the largest share of a ZIP's residential addresses (HUD), summed over its counties; null without them. */
function residentialState(rows: Array<{ countyFips: string; residentialRatio: number }> | undefined): string | null {
  const byState = new Map<string, number>();
  for (const row of rows ?? []) {
    const state = STATE_BY_FIPS[row.countyFips.slice(0, 2)];
    if (state) byState.set(state, (byState.get(state) ?? 0) + row.residentialRatio);
  }
  const [best] = [...byState].filter(([, share]) => share > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return best ? best[0] : null;
}
