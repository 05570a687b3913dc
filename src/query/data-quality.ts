import type Database from 'better-sqlite3';
import type { DataQuality } from '../answers/fields.ts';

/** How the provider component of a build stands: from full provider files, a declared sample, or left out. */
export type ProviderBasis = DataQuality['components']['provider'];

/** The columns a score query selects for its data quality (joined `zips` as z and `health_scores` as h). */
export const QUALITY_COLUMNS =
  'z.small_population AS _small, z.road_times AS _road, z.point_source AS _point, z.imputed AS _imputed, h.prevalence_used AS _prevalence, h.score_type_id AS _type';

/** A row carrying QUALITY_COLUMNS. */
export interface QualityColumns {
  _small: number;
  _road: number;
  _point: string;
  _imputed: string | null;
  _prevalence: number;
  _type: number;
}

interface BuildQuality {
  provider: { status: 'measured' | 'sample' | 'omitted'; sample_fraction?: number; synthetic?: boolean };
  prevalence_measures: Array<{ score_type_id: number; measure: string | null; available: boolean }>;
  small_population_threshold: number;
}

/**
 * Builds the `data_quality` objects of one build from its `meta.data_quality` record and each record's
 * flags. A build without that record (written before data quality was published) says the provider
 * component is measured, as such builds always had one.
 */
export class DataQualityCatalog {
  private readonly build: BuildQuality;
  private readonly measureOf: Map<number, { measure: string | null; available: boolean }>;

  constructor(db: Database.Database) {
    const raw = db.prepare("SELECT value FROM meta WHERE key = 'data_quality'").pluck().get() as string | undefined;
    this.build = raw
      ? (JSON.parse(raw) as BuildQuality)
      : { provider: { status: 'measured' }, prevalence_measures: [], small_population_threshold: 0 };
    this.measureOf = new Map(this.build.prevalence_measures.map((p) => [p.score_type_id, p]));
  }

  /** The provider basis of the whole build. */
  get provider(): ProviderBasis {
    return this.build.provider.status === 'omitted' ? 'missing' : this.build.provider.status;
  }

  /** Score type ids that have a CDC PLACES measure (present in the build or not). */
  get typesWithPrevalence(): number[] {
    return this.build.prevalence_measures
      .filter((p) => p.measure !== null && Number.isInteger(p.score_type_id))
      .map((p) => p.score_type_id);
  }

  /** The data quality of one score record. */
  of(row: QualityColumns): DataQuality {
    const imputed = row._imputed ? row._imputed.split(',') : [];
    const type = this.measureOf.get(row._type);
    const prevalence = !type?.measure ? 'none' : row._prevalence ? 'used' : 'missing';
    const notes: string[] = [];
    if (this.provider === 'measured' && this.build.provider.synthetic)
      notes.push("Clinicians are synthetic, so the provider component shows the method, not this ZIP's real clinicians.");
    if (this.provider === 'missing')
      notes.push(
        'The provider files cover only part of the country, so this score leaves clinician supply out and rests on people, hospitals and travel.',
      );
    if (this.provider === 'sample') {
      notes.push(
        this.build.provider.synthetic
          ? `Clinicians are synthetic (a declared ${formatShare(this.build.provider.sample_fraction)} sample at documented national densities, scaled up), so the provider component shows the method, not this ZIP's real clinicians.`
          : `Clinician supply comes from a declared sample of ${formatShare(this.build.provider.sample_fraction)} of clinicians, scaled up.`,
      );
    }
    if (row._small)
      notes.push(
        `Fewer than ${this.build.small_population_threshold} people live here, so the census shares rest on a few households and this ZIP is kept out of rankings.`,
      );
    if (imputed.length)
      notes.push(
        `No census value for ${imputed.map((m) => m.replace(/_pct$/, '').replace(/_/g, ' ')).join(', ')} here; the national median stands in.`,
      );
    if (prevalence === 'missing')
      notes.push(
        `No CDC PLACES ${type!.measure} prevalence ${type!.available ? 'for this ZIP' : 'in this build'}, so the score counts no condition prevalence.`,
      );
    const location = row._point === 'hud_residential' ? 'residents' : 'area';
    if (location === 'area')
      notes.push("Distances are measured from the middle of the ZIP's area: no point of its residents' addresses is known.");
    if (!row._road) notes.push('Travel times are estimated from straight-line miles.');
    return {
      components: { people: imputed.length ? 'estimated' : 'measured', provider: this.provider, hospital: 'measured', travel: 'measured' },
      small_population: row._small === 1,
      travel_times: row._road ? 'road' : 'straight_line',
      location,
      prevalence,
      imputed,
      note: notes.length ? notes.join(' ') : "Every component is measured from the build's sources.",
    };
  }

  /** A row's public form: its data quality added, the internal quality columns removed. */
  publish<Row extends QualityColumns>(row: Row): Omit<Row, keyof QualityColumns> & { data_quality: DataQuality } {
    const { _small, _road, _point, _imputed, _prevalence, _type, ...rest } = row;
    return { ...rest, data_quality: this.of(row) };
  }
}

function formatShare(fraction: number | undefined): string {
  return fraction === undefined ? 'a share' : `${+(fraction * 100).toPrecision(3)}%`;
}
