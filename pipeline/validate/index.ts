import type { ScoredHospital } from '../facilities/hospitals.ts';
import type { ZipPlace } from '../geo/places.ts';
import { plausibleHudRows } from '../geo/places.ts';
import { STATE_BY_FIPS } from '../geo/states.ts';
import type { Ingested } from '../ingest/ingested.ts';
import { ZctaOfZip } from '../ingest/zcta-of-zip.ts';
import type { ZipScores } from '../score/index.ts';
import type { ValidationReport } from '../../core/validation.ts';
import { clinicianValidation, type ClinicianInput } from './clinicians.ts';
import { validationReport, type ValidationZip } from './report.ts';
import { driveTimeCalibration, residentsPointReport } from './residents.ts';

export type { ValidationReport } from '../../core/validation.ts';

/** CMS hospital types that keep an emergency department to count a ZIP as holding an emergency hospital. */
const ACUTE_OR_CRITICAL_ACCESS = /^(acute care|critical access)/i;

/**
 * The validation report of a build: its overall scores beside the independent measures the manifest
 * supplies (reference drive times, SVI, RUCA, NCHS classes, HUD residential addresses, tract centres of
 * population, the CMS hospital file's emergency departments).
 */
export function validateBuild(
  places: ZipPlace[],
  scores: ZipScores[],
  hospitals: ScoredHospital[],
  data: Pick<
    Ingested,
    'reference' | 'tractCentres' | 'zctaRuca' | 'zipCounties' | 'zctaCounties' | 'facilities' | 'zipToZcta' | 'zctas' | 'driveTimes'
  >,
  options: { syntheticProviders?: boolean; clinicians?: Omit<ClinicianInput, 'places' | 'provider'> } = {},
): ValidationReport {
  const hospitalZips = new Set(hospitals.map((h) => h.zipIndex));
  // From the CMS file's own rows, not the build's roster: the check must not trust what it checks.
  const zctaOf = new ZctaOfZip(data.zipToZcta, data.zctas);
  const emergencyZips = new Set(
    data.facilities
      .filter((row) => row.source === 'cms' && row.emergency === true && ACUTE_OR_CRITICAL_ACCESS.test(row.type) && row.zip)
      .map((row) => zctaOf.of(row.zip!)),
  );
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
      primaryCareWithin10Miles: scores[i].access.primaryCareWithin10Miles,
      hospital: overall.hospital,
      travel: overall.travel,
      referenceHospitalMinutes: data.reference.hospitalDriveTimes.get(p.zip)?.minutes ?? null,
      hospitalInZip: hospitalZips.has(i),
      emergencyHospitalInZip: emergencyZips.has(p.zip),
      residentialState: residentialState(plausibleHudRows(p.zip, data.zipCounties.get(p.zip), data)),
    };
  });
  const clinicians = options.clinicians
    ? clinicianValidation({ ...options.clinicians, places, provider: scores.map((s) => s.byType[0].provider) })
    : null;
  return validationReport(
    zips,
    options,
    clinicians,
    residentsPointReport(places, data.tractCentres),
    driveTimeCalibration(
      places,
      data.driveTimes.get('hospital') ?? null,
      scores.map((s) => s.access.nearestHospitalMiles),
    ),
  );
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
