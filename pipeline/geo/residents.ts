import { haversineMiles } from '../../core/distance.ts';
import type { RejectKind } from '../base/errors.ts';
import type { GazetteerRow } from '../layouts/census.ts';
import type { SourcedResidentsPoint } from '../ingest/ingested.ts';
import { RESIDENTS_POINT_TOLERANCE } from '../config/scoring.ts';

/** Where a ZIP's distances are measured from (docs/METHODOLOGY.md, "Where residents are"). */
export type PointSource = 'hud_residential' | 'gazetteer_internal';

/** A ZCTA's point: the mean of its residents' addresses where HUD gives it and it is plausible, else the Gazetteer's. */
export interface ChosenPoint {
  latitude: number;
  longitude: number;
  source: PointSource;
}

/** A residents' point row the geography stage left out, for the reconciliation. */
export interface PointWithdrawal {
  key: string;
  line: number;
  reason: string;
  kind: RejectKind;
}

/**
 * Miles from a point to the nearest census tract centre of population of a ZCTA's home county, or null when
 * the build has no tract centres there (they are optional: the sample manifest has none).
 */
export type MilesFromResidents = (zcta: string, longitude: number, latitude: number) => number | null;

/**
 * True when the ZCTA's internal point, not HUD's, is the one in the wrong place: it lies far from every place
 * the census counted the ZIP's county's residents, and HUD's point among them (`RESIDENTS_POINT_TOLERANCE`).
 */
function internalPointAstray(zcta: GazetteerRow, point: SourcedResidentsPoint, milesFromResidents: MilesFromResidents): boolean {
  const internal = milesFromResidents(zcta.zcta, zcta.longitude, zcta.latitude);
  const residents = milesFromResidents(zcta.zcta, point.longitude, point.latitude);
  return (
    internal !== null &&
    residents !== null &&
    internal > RESIDENTS_POINT_TOLERANCE.strayMiles &&
    residents <= RESIDENTS_POINT_TOLERANCE.amongMiles
  );
}

/** The radius in miles of a disc with a ZCTA's land area: its size, for the plausibility rule. */
export function discRadiusMiles(landSqMi: number): number {
  return Math.sqrt(Math.max(landSqMi, 0) / Math.PI);
}

/**
 * Chooses every ZCTA's point. HUD's point of the same-numbered USPS ZIP (a ZCTA is named after the ZIP that
 * dominates its addresses) is taken when it lies within `RESIDENTS_POINT_TOLERANCE` of the ZCTA's internal
 * point: a mean of addresses can lie anywhere in a ZCTA and just outside it (a ZIP and its ZCTA differ at the
 * edges), but not hundreds of miles away (HUD's Guam rows carry a longitude of the wrong sign; rural route
 * ZIPs reach far beyond a small town's ZCTA), unless the internal point is the one astray (`internalPointAstray`:
 * a ZCTA's far-off piece holds it). Rows of ZIPs that are not ZCTAs (PO boxes, unique and business
 * ZIPs) have no ZCTA to place and are reported as excluded; implausible rows as invalid.
 */
export function chooseResidentsPoints(
  zctas: Map<string, GazetteerRow>,
  points: Map<string, SourcedResidentsPoint>,
  milesFromResidents: MilesFromResidents = () => null,
): { chosen: Map<string, ChosenPoint>; withdrawn: PointWithdrawal[] } {
  const chosen = new Map<string, ChosenPoint>();
  const withdrawn: PointWithdrawal[] = [];
  for (const point of points.values()) {
    const zcta = zctas.get(point.zip);
    const { key, line } = point.origin;
    if (!zcta) {
      withdrawn.push({
        key,
        line,
        kind: 'excluded',
        reason: `ZIP ${point.zip} is not a ZCTA (a PO box, unique or business ZIP, or newer than the Gazetteer): the ZCTA that holds it is placed by its own point`,
      });
      continue;
    }
    const offsetMiles = haversineMiles(zcta.longitude, zcta.latitude, point.longitude, point.latitude);
    const radiusMiles = discRadiusMiles(zcta.landSqMi);
    const limitMiles = RESIDENTS_POINT_TOLERANCE.radii * radiusMiles + RESIDENTS_POINT_TOLERANCE.miles;
    if (offsetMiles > limitMiles && !internalPointAstray(zcta, point, milesFromResidents)) {
      // A longitude of the wrong sign is an error of the file (HUD's Guam rows); a point that is merely far is
      // a postal ZIP whose addresses reach well beyond the ZCTA of its number (a rural route ZIP around a small
      // town ZCTA): a true point, but not of the ZCTA's residents.
      const flipped = haversineMiles(zcta.longitude, zcta.latitude, -point.longitude, point.latitude) <= limitMiles;
      const distance = `${Math.round(offsetMiles).toLocaleString('en-US')} miles from ZCTA ${point.zip}'s internal point, more than ${RESIDENTS_POINT_TOLERANCE.radii} times its ${radiusMiles.toFixed(1)}-mile radius plus ${RESIDENTS_POINT_TOLERANCE.miles} miles`;
      withdrawn.push(
        flipped
          ? {
              key,
              line,
              kind: 'invalid',
              reason: `longitude ${point.longitude} has the wrong sign: the point lies ${distance}; the Gazetteer point is used`,
            }
          : {
              key,
              line,
              kind: 'excluded',
              reason: `USPS ZIP ${point.zip}'s residential addresses centre ${distance}: the ZIP reaches far beyond the ZCTA, so the Gazetteer point is used`,
            },
      );
      continue;
    }
    chosen.set(point.zip, { latitude: point.latitude, longitude: point.longitude, source: 'hud_residential' });
  }
  for (const zcta of zctas.values()) {
    if (!chosen.has(zcta.zcta)) chosen.set(zcta.zcta, { latitude: zcta.latitude, longitude: zcta.longitude, source: 'gazetteer_internal' });
  }
  return { chosen, withdrawn };
}
