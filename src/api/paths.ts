/** Base path of every endpoint of the JSON API; handlers use it for the links they put in bodies. */
export const API_BASE = '/api/v1/';
