import type Database from 'better-sqlite3';
import type { Facility } from '../facilities/roster.ts';
import type { ZipPlace } from '../geo/places.ts';
import type { PointIndex } from '../geo/point-index.ts';
import type { Ingested, SourcedValue } from '../ingest/ingested.ts';
import type { ZipZctaRow } from '../layouts/crosswalks.ts';
import { bandFor } from '../config/bands.ts';
import { BatchedInsert } from '../store/batched-insert.ts';
import { SCORE_TYPES } from '../config/scoring.ts';
import type { ZipScores } from '../score/index.ts';
import { COMPONENTS } from '../../core/components.ts';
import { tviTier } from '../../core/tvi-tiers.ts';
import type { TviRecord } from '../score/tvi.ts';

/** Inserts into every column of `table` (`width` of them), several rows a statement (store/batched-insert.ts). */
function batchedInsert(db: Database.Database, table: string, width: number): BatchedInsert {
  return new BatchedInsert(db, `INSERT INTO ${table}`, `(${Array(width).fill('?').join(',')})`, width);
}

/** Writes `zips`, `score_types`, `health_scores`, `states`, `zip_access` and the KD-tree. */
/**
 * Writes the ZIPs, their scores and access facts. `clinicianBasis`: each ZIP's clinician sources, one letter per
 * category (supply/ basisLetters), null when the build publishes no provider component.
 */
export function emitScores(
  db: Database.Database,
  places: ZipPlace[],
  index: PointIndex,
  scores: ZipScores[],
  clinicianBasis: string[] | null,
): void {
  const insertZip = batchedInsert(db, 'zips', 19);
  const insertScore = batchedInsert(db, 'health_scores', 9 + COMPONENTS.length);
  const insertAccess = batchedInsert(db, 'zip_access', 12);
  const insertType = db.prepare('INSERT INTO score_types VALUES (?,?,?,?)');
  const finite = (x: number) => (Number.isFinite(x) ? x : null);
  db.transaction(() => {
    for (const type of SCORE_TYPES) insertType.run(type.id, type.name, type.slug, type.description);
    places.forEach((p, i) => {
      const z = scores[i];
      insertZip.add(
        p.zip,
        p.state,
        p.stateName,
        p.city,
        p.countyFips,
        p.cbsaCode,
        p.urbanRuralCode,
        p.latitude,
        p.longitude,
        p.landSqMi,
        p.population,
        i,
        z.smallPopulation ? 1 : 0,
        z.access.roadTimes ? 1 : 0,
        z.imputed.length ? z.imputed.join(',') : null,
        p.pointSource,
        p.gazetteerLatitude,
        p.gazetteerLongitude,
        clinicianBasis?.[i] ?? null,
      );
      SCORE_TYPES.forEach((type, t) => {
        const s = z.byType[t];
        const band = bandFor(s.healthscore);
        // Record ids are stable for a given ZIP list: 11 per ZIP in ZIP order, then by score type id.
        insertScore.add(
          i * SCORE_TYPES.length + type.id,
          p.zip,
          type.id,
          p.state,
          s.healthscore,
          ...COMPONENTS.map((c) => s[c]),
          band.label,
          band.grade,
          band.color,
          s.prevalenceUsed ? 1 : 0,
        );
      });
      const a = z.access;
      insertAccess.add(
        p.zip,
        a.nearestHospitalMiles,
        a.nearestHospitalId,
        a.nearestPrimaryCareMiles,
        a.hospitalsWithin10Miles,
        a.primaryCareWithin10Miles,
        finite(a.emergencyMinutes),
        finite(a.careMinutes),
        finite(a.majorHospitalMinutes),
        a.bedsPer1000,
        a.meanRatingNearby,
        z.mobilityGapPct,
      );
    });
    for (const insert of [insertZip, insertScore, insertAccess]) insert.flush();
    emitStates(db, places, scores);
    db.prepare('INSERT INTO kdtree VALUES (?, ?)').run('zips', Buffer.from(index.index.data as ArrayBuffer));
  })();
}

/**
 * State averages of the overall score, weighted by population over the ZIPs that are ranked (small
 * populations are left out, as everywhere rankings are made); a state with no ranked ZIP averages all its
 * ZIPs unweighted, so every state still has a row.
 */
function emitStates(db: Database.Database, places: ZipPlace[], scores: ZipScores[]): void {
  const states = new Map<string, { name: string; zips: number; population: number; weighted: number; plainSum: number }>();
  places.forEach((p, i) => {
    const s = states.get(p.state) ?? { name: p.stateName, zips: 0, population: 0, weighted: 0, plainSum: 0 };
    const score = scores[i].byType[0].healthscore;
    s.zips++;
    s.plainSum += score;
    if (!scores[i].smallPopulation) {
      s.population += p.population ?? 0;
      s.weighted += (p.population ?? 0) * score;
    }
    states.set(p.state, s);
  });
  const insertState = db.prepare('INSERT INTO states VALUES (?,?,?,?,?,?,?,?,?)');
  for (const [code, s] of states) {
    const exact = s.population > 0 ? s.weighted / s.population : s.plainSum / s.zips;
    const rounded = Math.floor(exact + 0.5);
    const band = bandFor(rounded);
    insertState.run(code, s.name, s.zips, rounded, exact, band.label, band.grade, band.color, s.population);
  }
}

/**
 * Writes `zip_aliases`: each ZIP code of the crosswalk that is not a scored ZIP code itself (a PO-box or
 * single-address ZIP, 10008) but lies in one (10007), so the API can answer it with that ZIP code's record.
 */
export function emitZipAliases(
  db: Database.Database,
  zipToZcta: ReadonlyMap<string, ZipZctaRow>,
  scored: (zip: string) => boolean,
): number {
  const insert = db.prepare('INSERT INTO zip_aliases VALUES (?,?,?,?,?)');
  let rows = 0;
  db.transaction(() => {
    for (const row of zipToZcta.values()) {
      if (scored(row.zip) || !scored(row.zcta)) continue;
      insert.run(row.zip, row.zcta, row.city, row.state, row.zipType || null);
      rows++;
    }
  })();
  return rows;
}

/** Writes the independent measures the validation report compares with (never used by the scores). */
export function emitReference(
  db: Database.Database,
  places: ZipPlace[],
  reference: Ingested['reference'],
  ruca: Map<string, number>,
): void {
  const insert = batchedInsert(db, 'zip_reference', 5);
  db.transaction(() => {
    for (const p of places) {
      const drive = reference.hospitalDriveTimes.get(p.zip);
      insert.add(p.zip, drive?.minutes ?? null, drive?.miles ?? null, reference.svi.get(p.zip) ?? null, ruca.get(p.zip) ?? null);
    }
    insert.flush();
  })();
}

/** Writes every census value with the source key it came from (the API states the source's vintage). */
export function emitCensus(db: Database.Database, places: ZipPlace[], census: Map<string, Map<string, SourcedValue>>): number {
  const insert = batchedInsert(db, 'census', 4);
  let rows = 0;
  db.transaction(() => {
    for (const place of places) {
      for (const [measure, { value, source }] of census.get(place.zip) ?? []) {
        insert.add(place.zip, measure, value, source);
        rows++;
      }
    }
    insert.flush();
  })();
  return rows;
}

/** Writes the merged facilities with their provider counts and the ZIP (ZCTA) they lie in. */
export function emitFacilities(
  db: Database.Database,
  facilities: Facility[],
  zctaOf: (f: Facility) => string | null,
  precision: (f: Facility) => string,
  providerCounts: Map<number, number>,
  stateName: (code: string) => string,
): void {
  const insert = batchedInsert(db, 'facilities', 21);
  db.transaction(() => {
    for (const f of facilities) {
      insert.add(
        f.id,
        f.name,
        f.type,
        f.address,
        f.city,
        f.state,
        stateName(f.state),
        f.zip,
        zctaOf(f),
        f.latitude,
        f.longitude,
        precision(f),
        f.rating,
        f.emergency ? 1 : 0,
        0,
        f.phone,
        f.website,
        f.staffedBeds,
        providerCounts.get(f.id) ?? 0,
        f.ccn,
        f.sources.join(','),
      );
    }
    insert.flush();
  })();
}

/** Writes one `meta` row per key, as JSON text (docs/schema.md lists the keys). */
export function emitMeta(db: Database.Database, meta: Record<string, unknown>): void {
  const insert = db.prepare('INSERT OR REPLACE INTO meta VALUES (?, ?)');
  db.transaction(() => {
    for (const [key, value] of Object.entries(meta)) insert.run(key, JSON.stringify(value));
  })();
}

/** Writes the TVI per ZIP and the population-weighted TVI of each metro/micro area (CBSA). */
export function emitTvi(
  db: Database.Database,
  places: ZipPlace[],
  tvi: TviRecord[],
  cbsaTitles: Map<string, { title: string; type: string }>,
): number {
  const insert = batchedInsert(db, 'tvi', 14);
  const metros = new Map<string, { zips: number; population: number; weighted: number; plain: number }>();
  db.transaction(() => {
    places.forEach((p, i) => {
      const t = tvi[i];
      insert.add(
        p.zip,
        p.state,
        t.tvi_score,
        t.tvi_tier,
        t.vehicle_score,
        t.transit_score,
        t.facility_distance_score,
        t.population_vulnerability_score,
        t.health_outcome_score,
        t.health_outcome_basis,
        t.zero_vehicle_pct,
        t.nearest_hospital_miles,
        t.population,
        t.ranked ? 1 : 0,
      );
      if (!p.cbsaCode || !t.ranked) return;
      const m = metros.get(p.cbsaCode) ?? { zips: 0, population: 0, weighted: 0, plain: 0 };
      const population = Math.max(0, p.population ?? 0);
      m.zips++;
      m.population += population;
      m.weighted += population * t.tvi_score;
      m.plain += t.tvi_score;
      metros.set(p.cbsaCode, m);
    });
    insert.flush();
    const insertMetro = db.prepare('INSERT INTO tvi_metros VALUES (?,?,?,?,?,?,?)');
    for (const [code, m] of metros) {
      // Population-weighted; an area whose ZIPs report no population falls back to the plain mean.
      const score = Math.round((m.population > 0 ? m.weighted / m.population : m.plain / m.zips) * 10) / 10;
      const cbsa = cbsaTitles.get(code);
      insertMetro.run(code, cbsa?.title ?? code, cbsa?.type ?? 'Metro', m.zips, m.population, score, tviTier(Math.round(score)));
    }
  })();
  return metros.size;
}
