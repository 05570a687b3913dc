const NAME_NOISE = /\b(THE|INC|LLC|CORP|CORPORATION|OF|AND|AT|CAMPUS|HOSP)\b|[^A-Z0-9 ]/g;

/** A name key that survives punctuation, "The", "Inc." and "&" vs "and" differences between sources. */
export function nameKey(name: string): string {
  return name
    .toUpperCase()
    .replace(/'S\b/g, 'S')
    .replace(/&/g, ' AND ')
    .replace(/HOSPITAL/g, 'HOSP')
    .replace(NAME_NOISE, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Words every hospital name may carry: what is left names the place ("BANNER PAYSON REGIONAL MEDICAL CENTER"
 * and "BANNER PAYSON MEDICAL CENTER" both leave BANNER, PAYSON).
 */
const GENERIC_WORDS = new Set([
  'HOSP',
  'HOSPITALS',
  'MEDICAL',
  'MEDICINE',
  'CENTER',
  'CENTRE',
  'CENTERS',
  'HEALTH',
  'HEALTHCARE',
  'CARE',
  'SYSTEM',
  'SYSTEMS',
  'REGIONAL',
  'REGION',
  'COMMUNITY',
  'GENERAL',
  'MEMORIAL',
  'DISTRICT',
  'COUNTY',
  'CLINIC',
  'CLINICS',
  'SERVICES',
  'SERVICE',
  'FACILITY',
  'NETWORK',
  'INSTITUTE',
  'CAMPUS',
  'MAIN',
  'ACUTE',
  'DBA',
  'A',
  'AN',
  'FOR',
  'IN',
  'ON',
  'LTD',
  'LLP',
  'CO',
]);
const SAINT = /\b(SAINT|STE|ST)\b/g;

/** The distinctive words of a facility name, after dropping the words every hospital name may carry. */
export function distinctiveWords(name: string): Set<string> {
  const words = nameKey(name).replace(SAINT, 'ST').split(' ');
  return new Set(words.filter((word) => word && !GENERIC_WORDS.has(word)));
}

/**
 * Whether two names plausibly name the same facility: the distinctive words of one contain those of the
 * other ("Banner Payson Regional" and "Banner Payson Medical Center"), or at least two thirds of the words
 * of either are shared. Only ever asked of facilities a few miles apart.
 */
export function namesAgree(a: string, b: string): boolean {
  const left = distinctiveWords(a);
  const right = distinctiveWords(b);
  if (left.size === 0 || right.size === 0) return nameKey(a) === nameKey(b);
  let shared = 0;
  for (const word of left) if (right.has(word)) shared++;
  return shared === Math.min(left.size, right.size) || shared >= (2 / 3) * Math.max(left.size, right.size);
}
