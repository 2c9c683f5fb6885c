export { AgentApiClient, type AgentApiClientOptions } from './client.js';
export { DEFAULT_RETRY_OPTIONS, mayRetry, nextRetry, type RetryOptions } from './retry-policy.js';
export { parseRetryAfter } from './errors.js';
