/**
 * Streams the provider files: the NPPES dissemination file (individuals, organizations including every
 * sample hospital, deactivated NPIs and a few deliberately broken rows) and, in the same pass, the Doctors
 * and Clinicians file for the Medicare-enrolled physicians, NPs and PAs among those individuals. Nothing
 * is kept per provider, so memory stays flat at any size.
 */
import { join } from 'node:path';
import type { Geography, Zcta } from './geography.ts';
import type { Facilities, Hospital } from './facilities.ts';
import type { Placement, PlacementKind } from './placement.ts';
import { placementSampler } from './placement.ts';
import { ORGANIZATION_KINDS, type ProviderKind } from './provider-mix.ts';
import {
  FILE_DATE,
  dayBetween,
  makeOrganization,
  makePractitioner,
  mailingLocation,
  type Organization,
  type Practitioner,
} from './people.ts';
import { npiCheckDigit } from '../../core/npi.ts';
import { silentCountProgress, type CountProgress } from '../../core/progress.ts';
import { NpiIssuer } from './npi.ts';
import { NPPES_HEADER, deactivatedLine, individualLine, organizationLine } from './nppes.ts';
import { DAC_HEADER, dacLines } from './dac.ts';
import { Rng, WeightedSampler } from './prng.ts';
import { OutputFile } from './writer.ts';

/** Relative paths of the provider files. */
export const NPPES_PATH = 'nppes/npidata_pfile_20240101-20240107.csv.gz';
export const DAC_PATH = 'cms/DAC_NationalDownloadableFile.csv.gz';

/** Why a deliberately broken NPPES row is broken. */
export type BrokenReason = 'invalid NPI check digit' | 'malformed practice ZIP' | 'short row';

/** A deliberately broken NPPES row, for tests that expect the build to reject it. */
export interface BrokenRow {
  npi: string;
  reason: BrokenReason;
  /** 1-based data row number in the NPPES file (the header is row 0). */
  row: number;
}

/** Row counts and broken rows of the provider files. */
export interface ProviderFilesResult {
  nppesRows: number;
  dacRows: number;
  individuals: number;
  organizations: number;
  deactivated: number;
  broken: BrokenRow[];
}

const BROKEN_REASONS: readonly BrokenReason[] = ['invalid NPI check digit', 'malformed practice ZIP', 'short row'];
const SHORT_ROW_FIELDS = 40;

const HOSPITAL_TAXONOMY: Record<string, string> = {
  'GENERAL ACUTE CARE': '282N00000X',
  'CRITICAL ACCESS': '282NC0060X',
  CHILDREN: '282NC2000X',
  PSYCHIATRIC: '283Q00000X',
  REHABILITATION: '283X00000X',
  'LONG TERM CARE': '282E00000X',
  MILITARY: '286500000X',
};

/** The NPPES organization of a sample hospital (same name and address, so files agree). */
function hospitalOrganization(rng: Rng, npi: string, h: Hospital): Organization {
  const phone = h.phone.replace(/\D/g, '');
  const practice = {
    address1: h.address,
    address2: '',
    city: h.city,
    state: h.state,
    zip: h.zip + rng.digits(4),
    phone,
    fax: '',
    zcta: h.zcta,
  };
  const enumerated = dayBetween(rng, Date.UTC(2005, 4, 23) / 86_400_000, Date.UTC(2008, 0, 1) / 86_400_000);
  const taxonomy = h.cmsType === 'Acute Care - Veterans Administration' ? '282N00000X' : (HOSPITAL_TAXONOMY[h.hifldType] ?? '282N00000X');
  return {
    npi,
    taxonomy,
    name: h.name,
    practice,
    mailing: mailingLocation(rng, practice),
    enumerated,
    updated: dayBetween(rng, enumerated, FILE_DATE),
  };
}

/**
 * The individual providers to write: `count` of them, each of a kind drawn by its share and placed by its kind's
 * placement weights; or, `planned`, each the next of a plan (clinician-plan.ts: kind, ZCTA and the practice ZIP
 * where it fixes one). Deliberately broken rows come on top of them, drawn either way.
 */
export interface Individuals {
  count: number;
  kinds: readonly ProviderKind[];
  planned?: { kinds: Uint16Array; zctas: Int32Array; zips: ReadonlyArray<string | undefined> };
}

/** The kinds of NPPES row, drawn in proportion to how many of each are left. */
const ROW_TYPES = ['individual', 'organization', 'deactivated', 'broken'] as const;
type RowType = (typeof ROW_TYPES)[number];

/** How many rows of each type to write for `individuals` individual providers. */
function rowCounts(individuals: number): Record<RowType, number> {
  const counts = {
    individual: individuals,
    organization: Math.round(individuals * 0.08),
    deactivated: Math.round(individuals * 0.005),
    broken: 0,
  };
  counts.broken = Math.max(3, Math.round((counts.individual + counts.organization + counts.deactivated) / 50_000));
  return counts;
}

/** An individual provider's NPPES line, its NPI and the practitioner its DAC lines are made from. */
interface IndividualRow {
  line: string;
  npi: string;
  practitioner: Practitioner;
}

/**
 * The random draws of the provider files: each row type's line, made from the seed's streams. The order of the
 * draws is the files' content: a row drawn in another order is another sample.
 */
class ProviderDraws {
  readonly rng: Rng;
  /** Its own stream: DAC choices never shift NPPES content. */
  readonly dacRng: Rng;
  private readonly issuer: NpiIssuer;
  private readonly samplers: Map<PlacementKind, WeightedSampler>;
  private readonly kindSampler: WeightedSampler;
  private readonly orgSampler = new WeightedSampler(ORGANIZATION_KINDS.map((k) => k.share));
  private readonly geo: Geography;
  private readonly hospitals: readonly Hospital[];
  private readonly individuals: Individuals;
  /** Every sample hospital becomes an organization first, in order. */
  private hospitalIndex = 0;

  constructor(geo: Geography, placement: Placement, facilities: Facilities, individuals: Individuals, seed: number) {
    this.rng = new Rng(seed, 'providers');
    this.dacRng = new Rng(seed, 'dac');
    this.issuer = new NpiIssuer(new Rng(seed, 'npi'));
    this.samplers = new Map(
      (['primary', 'community', 'specialist', 'hospital'] as const).map((k) => [
        k,
        placementSampler(geo, placement, k, facilities.bedsByZcta),
      ]),
    );
    this.kindSampler = new WeightedSampler(individuals.kinds.map((k) => k.share));
    this.geo = geo;
    this.hospitals = facilities.hospitals;
    this.individuals = individuals;
  }

  /** The type of the next row, in proportion to what is left of each (`left` is counted down). */
  nextType(left: Record<RowType, number>, total: number): RowType {
    let pick = this.rng.int(total);
    const type = ROW_TYPES.find((t) => (pick -= left[t]) < 0)!;
    left[type]--;
    return type;
  }

  deactivated(): string {
    return deactivatedLine(this.issuer.issue(), dayBetween(this.rng, Date.UTC(2006, 0, 1) / 86_400_000, FILE_DATE));
  }

  /** The next sample hospital while any is left, then an organization of a drawn kind (a hospital's, as its parent). */
  organization(): string {
    const { rng, hospitals } = this;
    const npi = this.issuer.issue();
    if (this.hospitalIndex < hospitals.length)
      return organizationLine(rng, hospitalOrganization(rng, npi, hospitals[this.hospitalIndex++]!));
    const kind = ORGANIZATION_KINDS[this.orgSampler.sample(rng)]!;
    const parent = hospitals.length ? hospitals[rng.int(hospitals.length)]!.name : undefined;
    return organizationLine(rng, makeOrganization(rng, this.geo, npi, kind, this.zctaFor(kind.placement)), parent);
  }

  /**
   * An individual: the `planned` one (its plan's kind, ZCTA and ZIP) when a plan is given and this is not a
   * broken row, else one of a drawn kind; `reason` breaks it on purpose.
   */
  individual(planned: number | undefined, reason: BrokenReason | undefined): IndividualRow {
    const { rng, geo } = this;
    const plan = this.individuals.planned;
    const next = plan && planned !== undefined ? planned : -1;
    const kind = this.individuals.kinds[next >= 0 ? plan!.kinds[next]! : this.kindSampler.sample(rng)]!;
    const first9 = this.issuer.nextFirst9();
    const check = npiCheckDigit(first9);
    // A wrong check digit cannot collide with another NPI: every NPI has its own first nine digits.
    const npi = first9 + (reason === 'invalid NPI check digit' ? String((Number(check) + 1) % 10) : check);
    const zcta = next >= 0 ? geo.zctas[plan!.zctas[next]!]! : this.zctaFor(kind.placement);
    const practitioner = makePractitioner(rng, geo, npi, kind, zcta, next >= 0 ? plan!.zips[next] : undefined);
    if (reason === 'malformed practice ZIP') practitioner.practice = { ...practitioner.practice, zip: 'ABCDE' };
    let line = individualLine(rng, practitioner);
    if (reason === 'short row') line = line.split('","').slice(0, SHORT_ROW_FIELDS).join('","') + '"';
    return { line, npi, practitioner };
  }

  private zctaFor(kind: PlacementKind): Zcta {
    return this.geo.zctas[this.samplers.get(kind)!.sample(this.rng)]!;
  }
}

/** Writes the NPPES and DAC files for the individual providers and the organizations around them. */
export async function writeProviderFiles(
  outDir: string,
  geo: Geography,
  placement: Placement,
  facilities: Facilities,
  individuals: Individuals,
  seed: number,
  log?: (line: string) => void,
  progress: CountProgress = silentCountProgress('nppes'),
): Promise<ProviderFilesResult> {
  const draws = new ProviderDraws(geo, placement, facilities, individuals, seed);
  const left = rowCounts(individuals.count);
  const result: ProviderFilesResult = { nppesRows: 0, dacRows: 0, individuals: 0, organizations: 0, deactivated: 0, broken: [] };
  const nppes = OutputFile.open(join(outDir, NPPES_PATH), { gzip: true });
  const dac = OutputFile.open(join(outDir, DAC_PATH), { gzip: true, eol: '\r\n' });
  nppes.header(NPPES_HEADER);
  dac.header(DAC_HEADER);
  const rows = left.individual + left.organization + left.deactivated + left.broken;
  let nextLog = 500_000;
  // The types are drawn in proportion to what is left, so counts are exact and types are interleaved.
  for (let total = rows; total > 0; total--) {
    const type = draws.nextType(left, total);
    let line: string;
    if (type === 'deactivated') {
      line = draws.deactivated();
      result.deactivated++;
    } else if (type === 'organization') {
      line = draws.organization();
      result.organizations++;
    } else {
      const reason = type === 'broken' ? BROKEN_REASONS[result.broken.length % BROKEN_REASONS.length]! : undefined;
      const individual = draws.individual(type === 'individual' ? result.individuals : undefined, reason);
      line = individual.line;
      if (reason) result.broken.push({ npi: individual.npi, reason, row: nppes.rows + 1 });
      else {
        result.individuals++;
        for (const d of dacLines(draws.dacRng, geo, facilities, individual.practitioner)) if (dac.line(d)) await dac.flush();
      }
    }
    if (nppes.line(line)) await nppes.flush();
    if (nppes.rows % 1000 === 0) progress.update(nppes.rows, rows);
    if (nppes.rows === nextLog) {
      log?.(`  nppes: ${nppes.rows.toLocaleString('en-US')} rows`);
      nextLog += 500_000;
    }
  }
  await Promise.all([nppes.close(), dac.close()]);
  progress.done();
  result.nppesRows = nppes.rows;
  result.dacRows = dac.rows;
  return result;
}
