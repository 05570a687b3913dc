// Apart from files.ts, which makes the files: the routes and the static export name the paths without loading
// the code that makes them (d3-geo, topojson), so `hcas get` of any other path never loads it (bench/cli.ts).

/**
 * Where the page finds each data file (the routes of src/api/map.ts; `{slug}` is a score type's slug). A path
 * ending in `.bin` is a binary file of columns (src/map/columns.ts), sent as BINARY_TYPE; a folder path is JSON.
 * The files of the national view are binary: the page reads them as typed arrays, with no text to parse
 * (bench/map.ts measures the first paint).
 */
export const DATA_PATHS = {
  meta: '/map/data/',
  national: '/map/data/national/',
  outlines: '/map/data/outlines.bin',
  counties: '/map/data/counties/',
  zips: '/map/data/zips.bin',
  scores: '/map/data/scores/{slug}/scores.bin',
} as const;

/** The Content-Type of the binary data files. */
export const BINARY_TYPE = 'application/octet-stream';
