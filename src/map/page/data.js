/**
 * The map's data files (src/map/files.ts writes them): fetched from beside the page, checked to be of one
 * build, and read: the metadata and the counties as JSON, the files of the national view as binary columns
 * (columns.js), which are typed arrays as they come.
 */
import { readColumns } from './columns.js';

/** The layout of the data files this page reads (DATA_FORMAT in src/map/files.ts). */
const FORMAT = 3;

/** Thrown when a file is of another build than the page's metadata: the server switched builds between two requests. */
export class BuildChanged extends Error {}

/** Tries of a file a busy server refused (503: its query workers were full, or a first request ran long), about a minute in all. */
const TRIES = 7;

/** Where the page says it is waiting for a busy server (main.js sets it to its status line). */
export const waiting = { say: (_seconds) => {} };

/**
 * One data file, relative to the page: a `.bin` file's header fields and columns, else the JSON; `build` is the
 * build the page shows (undefined for the metadata itself). A busy server's 502, 503 or 504 and a dropped
 * connection are tried again after its Retry-After, else 1, 2, 4 ... seconds: the files are made on their first
 * request, which a loaded server may refuse.
 */
export async function fetchData(path, build) {
  let response;
  for (let attempt = 1; ; attempt++) {
    let error;
    try {
      // The default cache mode: the server sends no-cache, so a kept copy is revalidated, and index.html's preloads are used.
      response = await fetch(new URL(path, document.baseURI));
    } catch (failed) {
      error = failed;
    }
    if (!error && ![502, 503, 504].includes(response.status)) break;
    if (attempt === TRIES) throw error ?? new Error(`${path} answered ${response.status} ${TRIES} times`);
    const seconds = Number(response?.headers.get('Retry-After')) || 2 ** (attempt - 1);
    waiting.say(seconds);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  }
  if (!response.ok) throw new Error(`${path} answered ${response.status}`);
  const file = path.endsWith('.bin') ? readColumns(await response.arrayBuffer(), path) : await response.json();
  if (file.format !== FORMAT)
    throw new Error(`${path} is of data format ${file.format}; this page reads format ${FORMAT}: reload the page`);
  if (build !== undefined && file.build_id !== build) throw new BuildChanged(`${path} is of build ${file.build_id}, not ${build}`);
  return file;
}

/** Undoes the delta coding of a column (each value less the one before). */
function undelta(column, Type) {
  const out = new Type(column.length);
  let value = 0;
  for (let i = 0; i < column.length; i++) {
    value += column[i];
    out[i] = value;
  }
  return out;
}

/**
 * The ZIP codes' columns: frame points, state and county indexes, residents, and (made when first read: the
 * first paint needs neither) the codes and cities as strings.
 */
export function decodeZips(file, grid) {
  const { columns } = file;
  const count = columns.zip.length;
  const x = undelta(columns.x, Float32Array);
  const y = undelta(columns.y, Float32Array);
  for (let i = 0; i < count; i++) {
    x[i] /= grid;
    y[i] /= grid;
  }
  let zip;
  let city;
  return {
    count,
    x,
    y,
    state: columns.state,
    county: columns.county,
    residents: columns.residents,
    get zip() {
      zip ??= Array.from(undelta(columns.zip, Int32Array), (number) => String(number).padStart(5, '0'));
      return zip;
    },
    get city() {
      city ??= cities(columns.city, file.cities);
      return city;
    },
  };
}

/** Each ZIP code's city: a back-reference to the last ZIP code of the same city, or 0 for the next new name. */
function cities(references, names) {
  const city = new Array(references.length);
  let next = 0;
  for (let i = 0; i < references.length; i++) city[i] = references[i] === 0 ? names[next++] : city[i - references[i]];
  return city;
}

/** One score type's columns (Int8Array each); -1 stands for no score. */
export function decodeScores(file) {
  const { score, people, provider, hospital, travel, counties, states } = file.columns;
  return { score, people, provider, hospital, travel, counties, states };
}

/** Each county's code, name and rings (arc indexes into the outlines' arcs). */
export function decodeCounties(file) {
  return { fips: file.fips, names: file.names, rings: file.rings };
}
