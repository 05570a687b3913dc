import { readable } from '../../core/numbers.ts';

/** What the widget's sentence is made from. */
export interface SummaryFacts {
  /** The band label of the overall score (pipeline/config/bands.ts). */
  label: string;
  hospitals: number;
  /** Null when the build could not count clinicians (no provider component): the sentence speaks of hospitals only. */
  clinicians: number | null;
  /** Miles to the nearest general hospital; null when none is on record. */
  nearestHospitalMiles: number | null;
}

/** How each band's sentence opens; a label not listed opens with itself. */
const LEADS: Record<string, string> = {
  'Healthcare Paradise': 'Outstanding access',
  'Excellent Access': 'Excellent access',
  'Moderate Access': 'Moderate access',
  'Limited Access': 'Limited access',
  'Healthcare Desert': 'Healthcare desert',
};

/**
 * The widget's one plain-English sentence: the band, then what lies within 10 miles, and how far the nearest
 * hospital is when none is that close. "Excellent access: 4 hospitals and 210 primary care clinicians within
 * 10 miles"; "Limited access: 12 primary care clinicians but no hospital within 10 miles; the nearest
 * hospital is 14.2 miles away".
 */
export function widgetSummary(facts: SummaryFacts): string {
  const lead = LEADS[facts.label] ?? facts.label;
  const hospitals = count(facts.hospitals, 'hospital', 'hospitals');
  if (facts.clinicians === null) {
    const within = facts.hospitals > 0 ? hospitals : 'no hospital';
    const nearest =
      facts.hospitals > 0
        ? ''
        : facts.nearestHospitalMiles === null
          ? '; no hospital is on record nearby'
          : `; the nearest hospital is ${miles(facts.nearestHospitalMiles)} away`;
    return `${lead}: ${within} within 10 miles${nearest}`;
  }
  const clinicians = count(facts.clinicians, 'primary care clinician', 'primary care clinicians');
  let within: string;
  if (facts.hospitals > 0 && facts.clinicians > 0) within = `${hospitals} and ${clinicians}`;
  else if (facts.hospitals > 0) within = `${hospitals} but no primary care clinician`;
  else if (facts.clinicians > 0) within = `${clinicians} but no hospital`;
  else within = 'no hospital or primary care clinician';
  let sentence = `${lead}: ${within} within 10 miles`;
  if (facts.hospitals === 0) {
    sentence +=
      facts.nearestHospitalMiles === null
        ? '; no hospital is on record nearby'
        : `; the nearest hospital is ${miles(facts.nearestHospitalMiles)} away`;
  }
  return sentence;
}

/** "1 hospital", "2 hospitals", "1,250 primary care clinicians". */
function count(n: number, one: string, many: string): string {
  return `${readable(n, 0)} ${n === 1 ? one : many}`;
}

/** "14.2 miles", "1 mile", "0.4 miles": one decimal, none when it is zero. */
function miles(distance: number): string {
  const rounded = Math.round(distance * 10) / 10;
  return `${readable(rounded, 1)} ${rounded === 1 ? 'mile' : 'miles'}`;
}
