// JSON over HTTP for provider adapters: timeouts, retries with backoff, clear PROVIDER_* errors.
export { postJson, endpointUrl, retryAfterMs } from './post-json.js';
export type { HttpProviderOptions } from './post-json.js';
