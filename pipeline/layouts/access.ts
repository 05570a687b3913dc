import { RowReject } from '../base/errors.ts';
import { zcta5 } from './census.ts';
import type { Layout } from './types.ts';
import { optionalNumber } from './values.ts';

/** Road-network travel from one ZIP (or ZCTA) to the nearest facility of a kind. */
export interface DriveTimeRow {
  zip: string;
  minutes: number | null;
  miles: number | null;
}

/**
 * No drive covers a straight-line mile in less than 0.75 minute (80 mph). Rows of the HEROP tables that claim
 * to (Fqhc-ZIP25 gives 1.4 minutes to a health centre 94 miles away for 59222) are inconsistent and rejected.
 * Zero minutes is a table's own convention (OEPS: a hospital inside the ZCTA; HEROP: not computed) and is kept.
 */
const MIN_MINUTES_PER_STRAIGHT_MILE = 0.75;
/**
 * Nor does a drive take more than 10 minutes plus 4 per straight-line mile (the slowest tenth of HEROP rows
 * take 2.9 minutes a mile). Rows beyond it are routing failures: Hosp-ZIP25 gives 29.7 minutes to a hospital
 * 1.9 miles away in Rochester NY (14609) and 42.4 minutes for 5.8 miles in Evanston WY, whose hospital is in town.
 */
const MAX_MINUTES = { fixed: 10, perStraightMile: 4 } as const;

/** The facility kinds a drive-time table may describe (`options.destination` in the manifest). */
export const DRIVE_DESTINATIONS = ['hospital', 'health_center'] as const;
export type DriveDestination = (typeof DRIVE_DESTINATIONS)[number];

/**
 * Drive time and distance per ZIP or ZCTA to the nearest hospital or health centre: the HEROP access tables
 * (Hosp-ZIP25 / Fqhc-ZIP25: ZIP, HospTmDr, HospMinDis) and the OEPS access tables (ZCTA, timeDrive,
 * minDisHosp). `options.zero_is_missing` treats 0 minutes as "not computed" (Hosp-ZIP25 writes 0.0 for
 * islands and Puerto Rico, whose straight-line distances run to 50 miles).
 */
export const driveTimes: Layout<DriveTimeRow> = {
  name: 'drive_times',
  description: 'Drive minutes and miles per ZIP/ZCTA to the nearest hospital or health centre (HEROP Hosp-ZIP25, OEPS Access03)',
  fields: {
    zip: { aliases: ['ZIP', 'ZCTA', 'ZCTA5', 'GEOID'], required: true },
    minutes: { aliases: ['HospTmDr', 'FqhcTmDr', 'timeDrive'], required: true },
    miles: { aliases: ['HospMinDis', 'FqhcMinDis', 'minDisHosp', 'minDisFQHC'] },
  },
  parse(read, _header, options) {
    let minutes = optionalNumber(read('minutes'), 'minutes');
    if (minutes !== null && minutes < 0) throw new RowReject(`drive minutes must not be negative, got ${minutes}`);
    if (minutes === 0 && options.zero_is_missing === true) minutes = null;
    const miles = optionalNumber(read('miles'), 'miles');
    if (miles !== null && miles < 0) throw new RowReject(`miles must not be negative, got ${miles}`);
    if (minutes !== null && minutes > 0 && miles !== null && minutes < miles * MIN_MINUTES_PER_STRAIGHT_MILE) {
      throw new RowReject(
        `drive time ${+minutes.toFixed(1)} min cannot cover the row's own ${+miles.toFixed(1)} straight-line miles (it would mean driving faster than 80 mph)`,
        'invalid',
        'drive_time_too_short',
      );
    }
    if (minutes !== null && miles !== null && minutes > MAX_MINUTES.fixed + MAX_MINUTES.perStraightMile * miles) {
      throw new RowReject(
        `drive time ${+minutes.toFixed(1)} min is too long for the row's own ${+miles.toFixed(1)} straight-line miles (more than ${MAX_MINUTES.fixed} min + ${MAX_MINUTES.perStraightMile} min per mile)`,
        'invalid',
        'drive_time_too_long',
      );
    }
    return { zip: zcta5(read('zip')), minutes, miles };
  },
};

/** CDC/ATSDR Social Vulnerability Index per ZCTA: the overall percentile rank (0-1), for the validation report. */
export interface SviRow {
  zcta: string;
  rank: number | null;
}

export const sviZcta: Layout<SviRow> = {
  name: 'svi_zcta',
  description: 'CDC/ATSDR SVI per ZCTA or ZIP (ZCTA5, SviSmryRnk or RPL_THEMES)',
  fields: {
    zcta: { aliases: ['ZCTA5', 'ZCTA', 'ZIP', 'FIPS'], required: true },
    rank: { aliases: ['SviSmryRnk', 'RPL_THEMES'], required: true },
  },
  parse(read) {
    const rank = optionalNumber(read('rank'), 'SviSmryRnk');
    // The SVI writes -999 for areas it does not rank (no population).
    return { zcta: zcta5(read('zcta')), rank: rank === null || rank < 0 ? null : rank };
  },
};
