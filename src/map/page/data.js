/**
 * The map's data files (src/map/files.ts writes them): fetched from beside the page, checked to be of one
 * build, and decoded from their columns into typed arrays.
 */

/** The layout of the data files this page reads (DATA_FORMAT in src/map/files.ts). */
const FORMAT = 1;

/** Thrown when a file is of another build than the page's metadata: the server switched builds between two requests. */
export class BuildChanged extends Error {}

/** Tries of a file a busy server refused (503: its query workers were full, or a first request ran long), about a minute in all. */
const TRIES = 7;

/** Where the page says it is waiting for a busy server (main.js sets it to its status line). */
export const waiting = { say: (_seconds) => {} };

/**
 * The JSON of one data file, relative to the page; `build` is the build the page shows (undefined for the
 * metadata itself). A busy server's 502, 503 or 504 and a dropped connection are tried again after its
 * Retry-After, else 1, 2, 4 ... seconds: the files are made on their first request, which a loaded server may refuse.
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
  const file = await response.json();
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

/** The ZIP codes' columns: codes, frame points, state and county indexes, residents and cities. */
export function decodeZips(file, grid) {
  const count = file.zip.length;
  const numbers = undelta(file.zip, Int32Array);
  const x = undelta(file.x, Float32Array);
  const y = undelta(file.y, Float32Array);
  for (let i = 0; i < count; i++) {
    x[i] /= grid;
    y[i] /= grid;
  }
  const zip = new Array(count);
  const city = new Array(count);
  let next = 0;
  for (let i = 0; i < count; i++) {
    zip[i] = String(numbers[i]).padStart(5, '0');
    // A city is a back-reference to the last ZIP code of the same city, or 0 for the next new name.
    city[i] = file.city[i] === 0 ? file.cities[next++] : city[i - file.city[i]];
  }
  return {
    count,
    zip,
    x,
    y,
    state: Int16Array.from(file.state),
    county: Int32Array.from(file.county),
    residents: Float64Array.from(file.residents),
    city,
  };
}

/** One score type's columns; -1 stands for no score (null in the file). */
export function decodeScores(file) {
  const column = (values) => Int8Array.from(values, (value) => (value === null ? -1 : value));
  return {
    score: column(file.score),
    people: column(file.people),
    provider: column(file.provider),
    hospital: column(file.hospital),
    travel: column(file.travel),
    counties: column(file.counties),
    states: column(file.states),
  };
}

/** Each county's code, name and state (the first two digits of its code). */
export function decodeCounties(file) {
  return { fips: file.fips, names: file.names, rings: file.rings };
}
