// The inspector's API client: the bearer token kept for the browser session, JSON calls, readable errors.

const TOKEN_KEY = 'mnemo.token';

/** An API answer that was not a success, with the server's code and message. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The token of this browser session, or null. */
export function getToken() {
  return sessionStorage.getItem(TOKEN_KEY);
}

/** Keeps the token for this browser session (null forgets it). */
export function setToken(token) {
  if (token === null) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

/**
 * Calls the API: `api('/v1/saves')`, `api('/v1/saves/a/rewind', { body: { turnId: 3 } })` (a body means POST).
 * Resolves to the parsed JSON; rejects with an ApiError carrying the server's code and message.
 */
export async function api(path, options = {}) {
  const headers = { accept: 'application/json' };
  const token = getToken();
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response;
  try {
    response = await fetch(path, { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  } catch (error) {
    throw new ApiError(0, 'NETWORK', `The server did not answer (${error.message}). Is \`mnemo serve\` still running?`);
  }
  const text = await response.text();
  let json = {};
  try {
    json = text === '' ? {} : JSON.parse(text);
  } catch {
    throw new ApiError(response.status, 'BAD_ANSWER', `The server answered ${response.status} with something other than JSON.`);
  }
  if (!response.ok) {
    const error = json.error ?? {};
    throw new ApiError(response.status, error.code ?? 'HTTP_' + response.status, error.message ?? `The server answered ${response.status}.`);
  }
  return json;
}

/** A query string from an object, leaving out undefined, null and empty values. */
export function queryString(values) {
  const parameters = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined || value === null || value === '') continue;
    parameters.set(key, String(value));
  }
  const text = parameters.toString();
  return text === '' ? '' : `?${text}`;
}

/** `/v1/saves/<id>` with the id escaped. */
export function savePath(saveId, rest = '') {
  return `/v1/saves/${encodeURIComponent(saveId)}${rest}`;
}
