/** Base path of every endpoint (the route table's prefix), for links handlers put in bodies. */
export const API_BASE_PATH = '/api/v1/';
