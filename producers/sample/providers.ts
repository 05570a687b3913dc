/**
 * Streams the provider files: the NPPES dissemination file (individuals, organizations including every
 * sample hospital, deactivated NPIs and a few deliberately broken rows) and, in the same pass, the Doctors
 * and Clinicians file for the Medicare-enrolled physicians, NPs and PAs among those individuals. Nothing
 * is kept per provider, so memory stays flat at any size.
 */
import { join } from 'node:path';
import type { Geography } from './geography.ts';
import type { Facilities, Hospital } from './facilities.ts';
import type { Placement, PlacementKind } from './placement.ts';
import { placementSampler } from './placement.ts';
import { ORGANIZATION_KINDS, type ProviderKind } from './provider-mix.ts';
import { FILE_DATE, dayBetween, makeOrganization, makePractitioner, mailingLocation, type Organization } from './people.ts';
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
  const { kinds, planned } = individuals;
  const rng = new Rng(seed, 'providers');
  const dacRng = new Rng(seed, 'dac'); // its own stream: DAC choices never shift NPPES content
  const issuer = new NpiIssuer(new Rng(seed, 'npi'));
  const samplers = new Map<PlacementKind, WeightedSampler>(
    (['primary', 'community', 'specialist', 'hospital'] as const).map((k) => [
      k,
      placementSampler(geo, placement, k, facilities.bedsByZcta),
    ]),
  );
  const kindSampler = new WeightedSampler(kinds.map((k) => k.share));
  const orgSampler = new WeightedSampler(ORGANIZATION_KINDS.map((k) => k.share));
  const zctaFor = (kind: PlacementKind) => geo.zctas[samplers.get(kind)!.sample(rng)]!;

  const remaining = {
    individual: individuals.count,
    organization: Math.round(individuals.count * 0.08),
    deactivated: Math.round(individuals.count * 0.005),
    broken: 0,
  };
  remaining.broken = Math.max(3, Math.round((remaining.individual + remaining.organization + remaining.deactivated) / 50_000));
  const result: ProviderFilesResult = { nppesRows: 0, dacRows: 0, individuals: 0, organizations: 0, deactivated: 0, broken: [] };

  const nppes = OutputFile.open(join(outDir, NPPES_PATH), { gzip: true });
  const dac = OutputFile.open(join(outDir, DAC_PATH), { gzip: true, eol: '\r\n' });
  nppes.header(NPPES_HEADER);
  dac.header(DAC_HEADER);
  const hospitals = facilities.hospitals;
  let hospitalIndex = 0;
  let nextLog = 500_000;
  let total = remaining.individual + remaining.organization + remaining.deactivated + remaining.broken;
  const rows = total;

  while (total > 0) {
    // Draw the row type in proportion to what is left, so counts are exact and types are interleaved.
    let pick = rng.int(total);
    const type = (['individual', 'organization', 'deactivated', 'broken'] as const).find((t) => (pick -= remaining[t]) < 0)!;
    remaining[type]--;
    total--;
    let line: string;
    if (type === 'deactivated') {
      line = deactivatedLine(issuer.issue(), dayBetween(rng, Date.UTC(2006, 0, 1) / 86_400_000, FILE_DATE));
      result.deactivated++;
    } else if (type === 'organization') {
      const npi = issuer.issue();
      if (hospitalIndex < hospitals.length) {
        line = organizationLine(rng, hospitalOrganization(rng, npi, hospitals[hospitalIndex++]!));
      } else {
        const kind = ORGANIZATION_KINDS[orgSampler.sample(rng)]!;
        const parent = hospitals.length ? hospitals[rng.int(hospitals.length)]!.name : undefined;
        line = organizationLine(rng, makeOrganization(rng, geo, npi, kind, zctaFor(kind.placement)), parent);
      }
      result.organizations++;
    } else {
      const next = planned && type === 'individual' ? result.individuals : -1;
      const kind = kinds[next >= 0 ? planned!.kinds[next]! : kindSampler.sample(rng)]!;
      const first9 = issuer.nextFirst9();
      const check = npiCheckDigit(first9);
      const reason = type === 'broken' ? BROKEN_REASONS[result.broken.length % BROKEN_REASONS.length]! : undefined;
      // A wrong check digit cannot collide with another NPI: every NPI has its own first nine digits.
      const npi = first9 + (reason === 'invalid NPI check digit' ? String((Number(check) + 1) % 10) : check);
      const zcta = next >= 0 ? geo.zctas[planned!.zctas[next]!]! : zctaFor(kind.placement);
      const p = makePractitioner(rng, geo, npi, kind, zcta, next >= 0 ? planned!.zips[next] : undefined);
      if (reason === 'malformed practice ZIP') p.practice = { ...p.practice, zip: 'ABCDE' };
      line = individualLine(rng, p);
      if (reason === 'short row') line = line.split('","').slice(0, SHORT_ROW_FIELDS).join('","') + '"';
      if (reason) result.broken.push({ npi, reason, row: nppes.rows + 1 });
      else {
        result.individuals++;
        for (const d of dacLines(dacRng, geo, facilities, p)) if (dac.line(d)) await dac.flush();
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
