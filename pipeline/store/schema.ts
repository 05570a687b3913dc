import type Database from 'better-sqlite3';
import { COMPONENTS, componentColumn, isNullable } from '../../core/components.ts';

/**
 * The tables of `dist-api/hcas.sqlite` that the API reads (docs/schema.md describes each column).
 * Indexes are created after the bulk load, in `createIndexes`, because building them once is faster.
 */
export const SCHEMA_SQL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE score_types (id INTEGER PRIMARY KEY, name TEXT NOT NULL, slug TEXT NOT NULL UNIQUE, description TEXT NOT NULL);
CREATE TABLE zips (
  zip_code TEXT PRIMARY KEY, state TEXT NOT NULL, state_name TEXT NOT NULL, city TEXT NOT NULL,
  county_fips TEXT, cbsa_code TEXT, urban_rural_code INTEGER, latitude REAL NOT NULL, longitude REAL NOT NULL,
  land_sqmi REAL, population INTEGER, kd_index INTEGER NOT NULL UNIQUE,
  small_population INTEGER NOT NULL, road_times INTEGER NOT NULL, imputed TEXT,
  point_source TEXT NOT NULL, gazetteer_latitude REAL NOT NULL, gazetteer_longitude REAL NOT NULL, clinician_basis TEXT
) WITHOUT ROWID;
CREATE TABLE health_scores (
  id INTEGER PRIMARY KEY, zip_code TEXT NOT NULL, score_type_id INTEGER NOT NULL, state TEXT NOT NULL,
  healthscore INTEGER NOT NULL,
  ${COMPONENTS.map((c) => `${componentColumn(c)} INTEGER${isNullable(c) ? '' : ' NOT NULL'}`).join(', ')}, label TEXT NOT NULL, grade TEXT NOT NULL, color TEXT NOT NULL,
  prevalence_used INTEGER NOT NULL
);
CREATE TABLE states (
  state_code TEXT PRIMARY KEY, state_name TEXT NOT NULL, zip_count INTEGER NOT NULL,
  avg_healthscore INTEGER NOT NULL, avg_healthscore_exact REAL NOT NULL, label TEXT NOT NULL, grade TEXT NOT NULL, color TEXT NOT NULL,
  population INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE kdtree (name TEXT PRIMARY KEY, data BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE census (zip_code TEXT NOT NULL, measure TEXT NOT NULL, value REAL, source TEXT NOT NULL, PRIMARY KEY (zip_code, measure)) WITHOUT ROWID;
CREATE TABLE zip_access (
  zip_code TEXT PRIMARY KEY, nearest_hospital_miles REAL, nearest_hospital_id INTEGER, nearest_primary_care_miles REAL,
  hospitals_within_10_miles INTEGER NOT NULL, primary_care_within_10_miles INTEGER,
  emergency_minutes REAL, care_minutes REAL, major_hospital_minutes REAL, beds_per_1000 REAL, mean_rating_nearby REAL, mobility_gap_pct REAL
) WITHOUT ROWID;
CREATE TABLE zip_reference (
  zip_code TEXT PRIMARY KEY, reference_hospital_minutes REAL, reference_hospital_miles REAL, svi_rank REAL, ruca INTEGER
) WITHOUT ROWID;
CREATE TABLE zip_aliases (
  zip_code TEXT PRIMARY KEY, zcta TEXT NOT NULL, city TEXT NOT NULL, state TEXT NOT NULL, zip_type TEXT
) WITHOUT ROWID;
CREATE TABLE tvi (
  zip_code TEXT PRIMARY KEY, state TEXT NOT NULL, tvi_score INTEGER NOT NULL, tvi_tier TEXT NOT NULL, vehicle_score REAL NOT NULL,
  transit_score REAL NOT NULL, facility_distance_score REAL NOT NULL, population_vulnerability_score REAL NOT NULL,
  health_outcome_score REAL NOT NULL, health_outcome_basis TEXT NOT NULL, zero_vehicle_pct REAL, nearest_hospital_miles REAL, population INTEGER,
  ranked INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE tvi_metros (
  cbsa_code TEXT PRIMARY KEY, cbsa_title TEXT NOT NULL, cbsa_type TEXT NOT NULL, zip_count INTEGER NOT NULL,
  population INTEGER NOT NULL, tvi_score REAL NOT NULL, tvi_tier TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE providers (
  npi TEXT NOT NULL, first_name TEXT NOT NULL, last_name TEXT NOT NULL, credential TEXT NOT NULL, gender TEXT NOT NULL,
  primary_taxonomy TEXT, primary_specialty TEXT NOT NULL, telehealth INTEGER NOT NULL,
  address TEXT NOT NULL, city TEXT NOT NULL, state TEXT NOT NULL, zip_code TEXT NOT NULL, zcta TEXT, phone TEXT NOT NULL,
  medical_school TEXT, residency TEXT, graduation_year INTEGER, facility_names TEXT NOT NULL
);
CREATE TABLE facilities (
  id INTEGER PRIMARY KEY, facility_name TEXT NOT NULL, facility_type TEXT NOT NULL, address TEXT NOT NULL,
  city_name TEXT NOT NULL, state_code TEXT NOT NULL, state_name TEXT NOT NULL, zip_code TEXT, zcta TEXT,
  latitude REAL, longitude REAL, location_precision TEXT NOT NULL, facility_rating INTEGER, emergency_services INTEGER NOT NULL,
  telehealth INTEGER NOT NULL, phone_number TEXT NOT NULL, website TEXT NOT NULL, staffed_beds INTEGER,
  provider_count INTEGER NOT NULL, ccn TEXT, sources TEXT NOT NULL
);
CREATE TABLE provider_postings (kind TEXT NOT NULL, key TEXT NOT NULL, count INTEGER NOT NULL, ranks BLOB NOT NULL, PRIMARY KEY (kind, key));
CREATE TABLE provider_arrays (name TEXT PRIMARY KEY, length INTEGER NOT NULL, data BLOB NOT NULL);
CREATE TABLE provider_last_names (name_key TEXT PRIMARY KEY, first_rank INTEGER NOT NULL, count INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE provider_first_names (name_key TEXT PRIMARY KEY, first_id INTEGER NOT NULL, start INTEGER NOT NULL, count INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE provider_specialties (key TEXT PRIMARY KEY, name TEXT NOT NULL, sources TEXT NOT NULL, providers INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE facility_index (name TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE blog_posts (
  id INTEGER PRIMARY KEY, slug TEXT NOT NULL UNIQUE, title TEXT NOT NULL, excerpt TEXT NOT NULL, published_at TEXT NOT NULL, html TEXT NOT NULL
);
`;

export const INDEX_SQL = `
CREATE UNIQUE INDEX health_scores_zip ON health_scores (score_type_id, zip_code);
CREATE INDEX health_scores_state ON health_scores (score_type_id, state, healthscore);
CREATE INDEX health_scores_score ON health_scores (score_type_id, healthscore);
CREATE INDEX zips_state_city ON zips (state, city);
CREATE UNIQUE INDEX providers_npi ON providers (npi);
CREATE INDEX facilities_state ON facilities (state_code);
CREATE INDEX tvi_rank ON tvi (ranked, tvi_score DESC, zip_code);
CREATE INDEX tvi_state_rank ON tvi (ranked, state, tvi_score DESC, zip_code);
CREATE INDEX blog_posts_published ON blog_posts (published_at DESC, id DESC);
`;

/** Creates every table in an empty database. */
export function createSchema(db: Database.Database): void {
  db.exec(SCHEMA_SQL);
}

/** Creates the read indexes once the tables are loaded. */
export function createIndexes(db: Database.Database): void {
  db.exec(INDEX_SQL);
}
