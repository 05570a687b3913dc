/**
 * Whether a file is a build the API can serve (header, SQLite's quick_check, meta): the server checks a new
 * database file with it before serving it. The checks belong to the query layer, which knows the file.
 */
export { BadBuildError, checkBuild, checkHeader } from '../query/check.ts';
