/**
 * Baseline for the NPPES ingest: DuckDB's multi-threaded CSV reader over the same file, every column as
 * text, counting rows and distinct practice ZIPs (so it must read them). Run as a child process by
 * bench/build.ts: node bin/run-ts.js bench/duckdb-read.ts FILE [THREADS]
 * DuckDB reads .gz itself; it cannot read a .zip (our reader can).
 */
import { DuckDBInstance } from '@duckdb/node-api';

const [file, threads = '2'] = process.argv.slice(2);
const started = process.hrtime.bigint();
const instance = await DuckDBInstance.create(':memory:', { threads });
const connection = await instance.connect();
// null_padding: the sample's deliberately short rows are read (as our reader does), not an error.
const sql = `SELECT count(*) AS n, count(DISTINCT "Provider Business Practice Location Address Postal Code") AS zips
  FROM read_csv('${file.replaceAll("'", "''")}', all_varchar = true, header = true, null_padding = true)`;
const [[rows, zips]] = (await connection.runAndReadAll(sql)).getRows();
console.log(JSON.stringify({ rows: Number(rows), zips: Number(zips), seconds: Number(process.hrtime.bigint() - started) / 1e9 }));
