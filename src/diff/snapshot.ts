import type { BuildFile } from '../query/build-file.ts';
import { FACILITY_COLUMNS, type FacilityRecord, facilityRecords } from './facilities.ts';
import {
  type CensusColumn,
  readCensus,
  readColumns,
  readPostingCounts,
  readScores,
  type ScoreRows,
  tableRows,
} from '../query/build-rows.ts';

/** The columns of `zips` and `zip_access` the diff knows; a column both builds have beyond these is compared as an extra fact. */
const ZIP_COLUMNS = ['zip_code', 'state', 'city', 'latitude', 'longitude', 'population', 'small_population', 'road_times'];
const ZIP_COLUMNS_IGNORED = ['state_name', 'county_fips', 'cbsa_code', 'urban_rural_code', 'land_sqmi', 'kd_index', 'imputed'];
export const ACCESS_COLUMNS = [
  'nearest_hospital_id',
  'nearest_hospital_miles',
  'emergency_minutes',
  'care_minutes',
  'major_hospital_minutes',
  'beds_per_1000',
  'mean_rating_nearby',
  'hospitals_within_10_miles',
  'primary_care_within_10_miles',
  'nearest_primary_care_miles',
  'mobility_gap_pct',
];
/** Census measures of the travel component's mobility part (pipeline/score/mobility.ts reads these two). */
export const MOBILITY_MEASURES = ['no_vehicle_pct', 'transit_commute_pct'];

/** The columns both builds have, per table, and a sentence for everything only one of them has. */
export class SharedSchema {
  readonly notCompared: string[] = [];
  private readonly shared = new Map<string, string[]>();

  constructor(old: BuildFile, current: BuildFile) {
    for (const table of new Set([...old.tables.keys(), ...current.tables.keys()])) {
      const [a, b] = [old.tables.get(table), current.tables.get(table)];
      if (!a || !b) {
        this.notCompared.push(`table ${table}: only in ${a ? 'OLD' : 'NEW'}`);
        continue;
      }
      this.shared.set(
        table,
        a.filter((column) => b.includes(column)),
      );
      const only = [...a.filter((c) => !b.includes(c)).map((c) => [c, 'OLD']), ...b.filter((c) => !a.includes(c)).map((c) => [c, 'NEW'])];
      for (const [column, side] of only) this.notCompared.push(`column ${table}.${column}: only in ${side}`);
    }
  }

  /** The shared columns of a table (empty when either build lacks it). */
  columns(table: string): string[] {
    return this.shared.get(table) ?? [];
  }

  has(table: string, ...columns: string[]): boolean {
    const shared = this.shared.get(table);
    return shared !== undefined && columns.every((column) => shared.includes(column));
  }

  /** Shared columns of `zips` or `zip_access` the diff does not know: compared as facts, by name. */
  extraColumns(table: 'zips' | 'zip_access'): string[] {
    const known = table === 'zips' ? [...ZIP_COLUMNS, ...ZIP_COLUMNS_IGNORED] : ['zip_code', ...ACCESS_COLUMNS];
    return this.columns(table).filter((column) => !known.includes(column));
  }
}

/** One build's ZIPs, ordered by ZIP code. Numbers are NaN where the build has none. */
export interface ZipTable {
  code: string[];
  index: Map<string, number>;
  state: string[];
  city: string[];
  population: Float64Array;
  latitude: Float64Array;
  longitude: Float64Array;
  smallPopulation: Float64Array;
  roadTimes: Float64Array;
  /** Shared columns the diff does not know (SharedSchema.extraColumns), by ZIP position. */
  extra: Map<string, unknown[]>;
}

/** Everything the diff reads of one build, laid out by its ZIP positions. */
export interface Snapshot {
  meta: Readonly<Record<string, unknown>>;
  zips: ZipTable;
  scores: ScoreRows;
  /** Shared `zip_access` columns by ZIP position; null when either build lacks the table. */
  access: Map<string, unknown[]> | null;
  census: Map<string, CensusColumn>;
  /** The facility roster; null when either build lacks the table. */
  facilities: FacilityRecord[] | null;
  clinicians: { byState: Map<string, number> | null; byZip: Map<string, number> | null };
  /** Published state averages (`states.avg_healthscore`), null when either build lacks them. */
  stateAverages: Map<string, number> | null;
}

/** A census value of the ZIP at position `at` (null where none), with the source key that gave it. */
export function censusValue(snapshot: Snapshot, measure: string, at: number): { value: number | null; source: string } {
  const column = snapshot.census.get(measure);
  if (!column || at < 0) return { value: null, source: '' };
  const value = column.value[at];
  return { value: Number.isNaN(value) ? null : value, source: column.sources[column.source[at]] };
}

const numbers = (values: unknown[] | undefined, size: number) =>
  Float64Array.from({ length: size }, (_, i) => (typeof values?.[i] === 'number' ? (values[i] as number) : Number.NaN));

/** Reads one build on the columns both builds share; `measures` are the census measures the causes need. */
export function loadSnapshot(build: BuildFile, schema: SharedSchema, measures: readonly string[]): Snapshot {
  const extras = schema.extraColumns('zips');
  const z = readColumns(
    build,
    'zips',
    [...ZIP_COLUMNS, ...extras].filter((c) => schema.has('zips', c)),
    'zip_code',
  );
  const code = (z.get('zip_code') ?? []) as string[];
  const size = code.length;
  const index = new Map(code.map((zip, i) => [zip, i]));
  const zips: ZipTable = {
    code,
    index,
    state: ((z.get('state') as string[] | undefined) ?? []).map(String),
    city: ((z.get('city') as string[] | undefined) ?? []).map(String),
    population: numbers(z.get('population'), size),
    latitude: numbers(z.get('latitude'), size),
    longitude: numbers(z.get('longitude'), size),
    smallPopulation: numbers(z.get('small_population'), size),
    roadTimes: numbers(z.get('road_times'), size),
    extra: new Map(extras.map((column) => [column, z.get(column) ?? []])),
  };
  return {
    meta: build.meta,
    zips,
    scores: readScores(build, index),
    access: schema.has('zip_access', 'zip_code')
      ? byZip(readColumns(build, 'zip_access', schema.columns('zip_access'), 'zip_code'), index)
      : null,
    census: readCensus(build, schema.has('census', 'zip_code', 'measure', 'value') ? measures : [], index),
    facilities: schema.has('facilities', 'id')
      ? facilityRecords(
          tableRows(
            build,
            'facilities',
            FACILITY_COLUMNS.filter((c) => schema.has('facilities', c)),
            'id',
          ),
          build.meta.scoring,
        )
      : null,
    clinicians: {
      byState: schema.has('provider_postings') ? readPostingCounts(build, 'state') : null,
      byZip: schema.has('provider_postings') ? readPostingCounts(build, 'zip') : null,
    },
    stateAverages: schema.has('states', 'state_code', 'avg_healthscore') ? stateAverages(build) : null,
  };
}

/** Columns keyed by `zip_code`, laid out by ZIP position (a ZIP the table lacks has undefined values). */
function byZip(columns: Map<string, unknown[]>, index: Map<string, number>): Map<string, unknown[]> {
  const keys = (columns.get('zip_code') ?? []) as string[];
  const out = new Map<string, unknown[]>();
  for (const [column, values] of columns) {
    if (column === 'zip_code') continue;
    const laid = new Array<unknown>(index.size);
    keys.forEach((zip, row) => {
      const at = index.get(zip);
      if (at !== undefined) laid[at] = values[row];
    });
    out.set(column, laid);
  }
  return out;
}

function stateAverages(build: BuildFile): Map<string, number> {
  const columns = readColumns(build, 'states', ['state_code', 'avg_healthscore'], 'state_code');
  const codes = columns.get('state_code') as string[];
  const values = columns.get('avg_healthscore') as number[];
  return new Map(codes.map((code, i) => [code, values[i]]));
}
