import type { DriveTimeCalibration, ResidentsPointReport } from '../../core/validation.ts';
import type { ZipPlace } from '../geo/places.ts';
import { PointIndex } from '../geo/point-index.ts';
import { censusRegion } from '../geo/states.ts';
import type { TractCentreRow } from '../layouts/residents.ts';
import { densityClass, describesResidents, minutesPerStraightMile, residentsOffsetMiles, type RoadTable } from '../score/road-times.ts';
import { quantile } from './stats.ts';
import { finiteOrNull, median, round } from '../../core/numbers.ts';

/** A figure of the report: one decimal unless said, null where there is no value. */
const reported = (x: number, digits = 1) => finiteOrNull(round(x, digits));

/** ZIPs of at least this many residents count in the comparison with the tract centres of population. */
const TRACT_CHECK_MIN_POPULATION = 1_000;
/** A residents' point this far from every tract centre of population lies where the census counted nobody. */
const EMPTY_LAND_MILES = 8;

/**
 * Where the residents' points lie: how many came from HUD and how many fell back to the Gazetteer, how far
 * they moved from the middle of the ZIP's area (a distribution), and, where the manifest supplies the Census
 * tract centres of population, how near each point lies to where the census counted people, against the
 * Gazetteer point of the same ZIP.
 */
export function residentsPointReport(places: ZipPlace[], tractCentres: TractCentreRow[]): ResidentsPointReport {
  const sources: Record<string, number> = {};
  for (const place of places) sources[place.pointSource] = (sources[place.pointSource] ?? 0) + 1;
  const moved = places.filter((p) => p.pointSource === 'hud_residential').map((p) => residentsOffsetMiles(p));
  const offsetMiles = {
    p50: reported(quantile(moved, 0.5)),
    p75: reported(quantile(moved, 0.75)),
    p90: reported(quantile(moved, 0.9)),
    p99: reported(quantile(moved, 0.99)),
    max: reported(quantile(moved, 1)),
  };
  if (tractCentres.length === 0) return { sources, offsetMiles, tractCentres: null };

  const peopled = tractCentres.filter((t) => t.population > 0);
  const index = new PointIndex(
    Float64Array.from(peopled, (t) => t.longitude),
    Float64Array.from(peopled, (t) => t.latitude),
  );
  const nearestCentre = (longitude: number, latitude: number) => index.nearest(longitude, latitude)?.miles ?? Number.NaN;
  const compared = places
    .filter((p) => p.pointSource === 'hud_residential' && (p.population ?? 0) >= TRACT_CHECK_MIN_POPULATION)
    .map((p) => ({
      place: p,
      residents: nearestCentre(p.longitude, p.latitude),
      gazetteer: nearestCentre(p.gazetteerLongitude, p.gazetteerLatitude),
    }));
  const residents = compared.map((c) => c.residents);
  const gazetteer = compared.map((c) => c.gazetteer);
  const emptyLand = compared
    .filter((c) => c.residents > EMPTY_LAND_MILES)
    .sort((a, b) => (b.place.population ?? 0) - (a.place.population ?? 0))
    .map((c) => ({
      zip: c.place.zip,
      city: c.place.city,
      state: c.place.state,
      population: c.place.population ?? 0,
      residentsMiles: reported(c.residents)!,
      gazetteerMiles: reported(c.gazetteer)!,
    }));
  return {
    sources,
    offsetMiles,
    tractCentres: {
      zips: compared.length,
      minPopulation: TRACT_CHECK_MIN_POPULATION,
      residentsMiles: { p50: reported(median(residents), 2), p90: reported(quantile(residents, 0.9), 2) },
      gazetteerMiles: { p50: reported(median(gazetteer), 2), p90: reported(quantile(gazetteer, 0.9), 2) },
      emptyLandMiles: EMPTY_LAND_MILES,
      emptyLand,
    },
  };
}

/**
 * How well straight-line miles times the configured minutes per mile estimate the road table's drive
 * minutes to the nearest hospital, over the ZIPs where the table describes the residents' trip (the ZIPs
 * whose minutes the scores take from it): by the density classes of the estimate and by Census region. `nearestHospitalMiles`
 * are the straight-line miles the scores measured from each residents' point; null without a hospital table.
 */
export function driveTimeCalibration(
  places: ZipPlace[],
  hospitalTable: RoadTable | null,
  nearestHospitalMiles: ReadonlyArray<number | null>,
): DriveTimeCalibration | null {
  if (!hospitalTable) return null;
  const pairs: Array<{ place: ZipPlace; tableMinutes: number; miles: number; estimate: number }> = [];
  places.forEach((place, i) => {
    const row = hospitalTable.get(place.zip);
    const miles = nearestHospitalMiles[i];
    if (!row || miles === null || miles <= 0 || !describesResidents(place, row, miles)) return;
    pairs.push({ place, tableMinutes: row.minutes!, miles, estimate: miles * minutesPerStraightMile(place) });
  });
  const summarise = (group: typeof pairs) => ({
    zips: group.length,
    tableMinutesPerMile: reported(median(group.map((p) => p.tableMinutes / p.miles)), 2),
    medianAbsoluteMinutes: reported(median(group.map((p) => Math.abs(p.estimate - p.tableMinutes)))),
    medianAbsolutePct: reported(median(group.map((p) => (100 * Math.abs(p.estimate - p.tableMinutes)) / p.tableMinutes))),
    medianBiasPct: reported(median(group.map((p) => (100 * (p.estimate - p.tableMinutes)) / p.tableMinutes))),
  });
  const groups = <K extends string | number>(key: (place: ZipPlace) => K | null) => {
    const byKey = new Map<K, typeof pairs>();
    for (const pair of pairs) {
      const k = key(pair.place);
      if (k === null) continue;
      const group = byKey.get(k);
      if (group) group.push(pair);
      else byKey.set(k, [pair]);
    }
    return [...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  };
  return {
    zips: pairs.length,
    all: summarise(pairs),
    byDensity: groups((p) => densityClass(p)?.minDensity ?? null)
      .reverse()
      .map(([minDensity, group]) => ({ minDensity, minutesPerMile: minutesPerStraightMile(group[0].place), ...summarise(group) })),
    byRegion: groups((p) => censusRegion(p.state)).map(([region, group]) => ({ region, ...summarise(group) })),
  };
}
