import { DEFAULT_BEDS, EMERGENCY_ONLY_TYPES, GENERAL_HOSPITAL_TYPES, MAJOR_HOSPITAL, STAFFED_PER_LICENSED_BED } from '../config/scoring.ts';
import type { Facility } from './roster.ts';

/** A hospital as the scores see it: where it is (a ZIP index and point), its beds, ED, rating and level. */
export interface ScoredHospital {
  id: number;
  zipIndex: number;
  longitude: number;
  latitude: number;
  /** Staffed inpatient beds (estimated from licensed beds, or a type default, where no source gives them). */
  beds: number;
  /** A general hospital or Rural Emergency Hospital with an emergency department. */
  emergency: boolean;
  rating: number | null;
  /** Trauma centre level I or II, or a large general hospital: where specialist and complex care is. */
  major: boolean;
}

const GENERAL_HOSPITAL = new RegExp(GENERAL_HOSPITAL_TYPES.join('|'), 'i');
/** Rural Emergency Hospitals (a CMS type since 2023) keep an emergency department but no inpatient beds. */
const RURAL_EMERGENCY = new RegExp(EMERGENCY_ONLY_TYPES.join('|'), 'i');

/** The hospitals that count in the scores, with beds, emergency department and level resolved as documented. */
export function scoredHospitals(facilities: Facility[], zipIndexOf: Map<number, number>): ScoredHospital[] {
  const scored: ScoredHospital[] = [];
  for (const f of facilities) {
    const zipIndex = zipIndexOf.get(f.id);
    if (!f.isHospital || zipIndex === undefined) continue;
    const general = GENERAL_HOSPITAL.test(f.type);
    const ruralEmergency = RURAL_EMERGENCY.test(f.type);
    if (!general && !ruralEmergency) continue;
    const beds = ruralEmergency ? 0 : staffedBeds(f);
    scored.push({
      id: f.id,
      zipIndex,
      longitude: f.longitude!,
      latitude: f.latitude!,
      beds,
      emergency: f.emergency,
      rating: f.rating,
      major: general && ((f.traumaLevel !== null && f.traumaLevel <= MAJOR_HOSPITAL.maxTraumaLevel) || beds >= MAJOR_HOSPITAL.minBeds),
    });
  }
  return scored;
}

/** Staffed beds: as reported, else licensed beds times the national staffed share, else the type's default. */
export function staffedBeds(f: Pick<Facility, 'staffedBeds' | 'licensedBeds' | 'type'>): number {
  if (f.staffedBeds !== null) return f.staffedBeds;
  if (f.licensedBeds !== null) return Math.round(f.licensedBeds * STAFFED_PER_LICENSED_BED);
  return /critical/i.test(f.type) ? DEFAULT_BEDS.criticalAccess : DEFAULT_BEDS.other;
}
