import type Database from 'better-sqlite3';
import { basisOfLetter, CLINICIAN_BASES, CLINICIAN_BASIS_LETTERS, type ClinicianBasis } from '../../core/clinician-basis.ts';
import type { DataQuality } from '../answers/fields.ts';

/** How the provider component of a build stands: from full provider files, a declared sample, or left out. */
export type ProviderBasis = DataQuality['components']['provider'];

/** The columns a score query selects for its data quality (joined `zips` as z and `health_scores` as h). */
export const QUALITY_COLUMNS =
  'z.small_population AS _small, z.road_times AS _road, z.point_source AS _point, z.imputed AS _imputed, h.prevalence_used AS _prevalence, h.score_type_id AS _type, z.clinician_basis AS _basis, (h.provider_score IS NULL) AS _noProvider';

/** A row carrying QUALITY_COLUMNS. */
export interface QualityColumns {
  _small: number;
  _road: number;
  _point: string;
  _imputed: string | null;
  _prevalence: number;
  _type: number;
  /** One letter per clinician category (core/clinician-basis.ts), null without a provider component. */
  _basis: string | null;
  _noProvider: number;
}

interface BuildQuality {
  provider: { status: 'measured' | 'sample' | 'omitted'; sample_fraction?: number; synthetic?: boolean };
  /** The order of `zips.clinician_basis`, each score type's clinician weights, and each category's sources. */
  clinicians?: {
    categories: string[];
    score_types: Record<string, Record<string, number>>;
    sources: Record<string, { basis: ClinicianBasis; sources: string[]; estimated_from?: string }>;
  };
  prevalence_measures: Array<{ score_type_id: number; measure: string | null; available: boolean }>;
  small_population_threshold: number;
}

/** One category of a score type: its weight and where its letter sits in `zips.clinician_basis`. */
interface TypeCategory {
  category: string;
  weight: number;
  position: number;
}

/**
 * Builds the `data_quality` objects of one build from its `meta.data_quality` record and each record's
 * flags. A build without that record (written before data quality was published) says the provider
 * component is measured, as such builds always had one.
 */
export class DataQualityCatalog {
  private readonly build: BuildQuality;
  private readonly measureOf: Map<number, { measure: string | null; available: boolean }>;
  private readonly categoriesOf: Map<number, TypeCategory[]>;

  constructor(db: Database.Database) {
    const raw = db.prepare("SELECT value FROM meta WHERE key = 'data_quality'").pluck().get() as string | undefined;
    this.build = raw
      ? (JSON.parse(raw) as BuildQuality)
      : { provider: { status: 'measured' }, prevalence_measures: [], small_population_threshold: 0 };
    this.measureOf = new Map(this.build.prevalence_measures.map((p) => [p.score_type_id, p]));
    const clinicians = this.build.clinicians;
    this.categoriesOf = new Map(
      Object.entries(clinicians?.score_types ?? {}).map(([id, weights]) => [
        Number(id),
        Object.entries(weights).map(([category, weight]) => ({ category, weight, position: clinicians!.categories.indexOf(category) })),
      ]),
    );
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
    const clinicians = this.clinicians(row);
    const provider = this.recordProvider(row, clinicians);
    const notes: string[] = [];
    if (this.provider === 'measured' && this.build.provider.synthetic)
      notes.push("Clinicians are synthetic, so the provider component shows the method, not this ZIP's real clinicians.");
    if (this.provider === 'missing')
      notes.push(
        'The provider files cover only part of the country, so this score leaves clinician supply out and rests on people, hospitals and travel.',
      );
    else if (provider === 'missing')
      notes.push(
        'No source counts the clinicians of this ZIP, so this score leaves clinician supply out and rests on people, hospitals and travel.',
      );
    if (this.provider === 'sample') {
      notes.push(
        this.build.provider.synthetic
          ? `Clinicians are synthetic (a declared ${formatShare(this.build.provider.sample_fraction)} sample drawn to match the real counts per county, scaled up), so the provider component shows the method, not this ZIP's real clinicians.`
          : `Clinician supply comes from a declared sample of ${formatShare(this.build.provider.sample_fraction)} of clinicians, scaled up.`,
      );
    }
    if (provider !== 'missing') notes.push(...clinicianNotes(clinicians));
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
      components: { people: imputed.length ? 'estimated' : 'measured', provider, hospital: 'measured', travel: 'measured' },
      small_population: row._small === 1,
      travel_times: row._road ? 'road' : 'straight_line',
      location,
      prevalence,
      imputed,
      clinicians,
      note: notes.length ? notes.join(' ') : "Every component is measured from the build's sources.",
    };
  }

  /** A row's public form: its data quality added, the internal quality columns removed. */
  publish<Row extends QualityColumns>(row: Row): Omit<Row, keyof QualityColumns> & { data_quality: DataQuality } {
    const { _small, _road, _point, _imputed, _prevalence, _type, _basis, _noProvider, ...rest } = row;
    return { ...rest, data_quality: this.of(row) };
  }

  /** The score type's categories with their weights, each with the basis of this ZIP's clinicians of it. */
  private clinicians(row: QualityColumns): DataQuality['clinicians'] {
    return (this.categoriesOf.get(row._type) ?? []).map(({ category, weight, position }) => ({
      category,
      weight,
      basis: row._basis === null ? 'none' : (basisOfLetter(row._basis.charAt(position)) ?? 'none'),
    }));
  }

  /**
   * The same data quality's `components.provider` and `clinicians` as SQL over `zips` z and `health_scores` h,
   * for the export, which builds its rows in SQLite.
   */
  sql(): { provider: string; clinicians: string } {
    const letter = (position: number) => `substr(z.clinician_basis, ${position + 1}, 1)`;
    const basis = (position: number) =>
      `CASE ${letter(position)} ${CLINICIAN_BASES.map((b) => `WHEN '${CLINICIAN_BASIS_LETTERS[b]}' THEN '${b}'`).join(' ')} ELSE 'none' END`;
    const byType = (each: (categories: TypeCategory[]) => string, otherwise: string) =>
      this.categoriesOf.size === 0
        ? otherwise
        : `CASE h.score_type_id ${[...this.categoriesOf].map(([id, categories]) => `WHEN ${id} THEN ${each(categories)}`).join(' ')} ELSE ${otherwise} END`;
    const clinicians = byType(
      (categories) =>
        `json_array(${categories.map(({ category, weight, position }) => `json_object('category', '${category}', 'weight', ${weight}, 'basis', ${basis(position)})`).join(', ')})`,
      'json_array()',
    );
    const estimated = byType(
      (categories) => categories.map(({ position }) => `${letter(position)} = '${CLINICIAN_BASIS_LETTERS.estimate}'`).join(' OR ') || '0',
      '0',
    );
    const provider =
      this.provider === 'missing'
        ? `'missing'`
        : `CASE WHEN h.provider_score IS NULL THEN 'missing' ${this.provider === 'sample' ? '' : `WHEN ${estimated} THEN 'estimated' `}ELSE '${this.provider}' END`;
    return { provider, clinicians };
  }

  /** The record's provider basis: missing where its score has none, estimated where an estimate carries part of it. */
  private recordProvider(row: QualityColumns, clinicians: DataQuality['clinicians']): ProviderBasis {
    if (this.provider === 'missing' || row._noProvider) return 'missing';
    if (this.provider === 'sample') return 'sample';
    return clinicians.some((c) => c.basis === 'estimate') ? 'estimated' : 'measured';
  }
}

/** A clinician category as the word before "clinicians" (pediatric clinicians, not pediatrics clinicians). */
const CLINICIAN_WORDS: Record<string, string> = {
  primary_care: 'primary care',
  behavioral_health: 'behavioral health',
  dentistry: 'dental',
  obgyn: 'OB/GYN',
  pediatrics: 'pediatric',
  cardiology: 'cardiology',
};

/** `a`, `a or b`, `a, b or c`. */
const eitherOf = (words: string[]) => (words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`);

/** What the categories without a count of their own rest on, in words. */
function clinicianNotes(clinicians: DataQuality['clinicians']): string[] {
  const named = (basis: ClinicianBasis) =>
    eitherOf(clinicians.filter((c) => c.basis === basis).map((c) => CLINICIAN_WORDS[c.category] ?? c.category.replace(/_/g, ' ')));
  const notes: string[] = [];
  const estimated = named('estimate');
  if (estimated)
    notes.push(
      `No count of ${estimated} clinicians is known: they are estimated as a national share of the physicians counted here (docs/METHODOLOGY.md, "Provider").`,
    );
  const none = named('none');
  if (none) notes.push(`No source counts ${none} clinicians here, so the provider component weighs the other categories.`);
  return notes;
}

function formatShare(fraction: number | undefined): string {
  return fraction === undefined ? 'a share' : `${+(fraction * 100).toPrecision(3)}%`;
}
