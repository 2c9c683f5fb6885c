/** Configuration: one validated `AppConfig`, loaded once at start (docs/configuration.md). */
export type { AgentConfigInput, AppConfig, LogLevel, Route, ScheduleConfig, ScheduleNotify } from './types.js';
export { LOG_LEVELS } from './types.js';
export { ConfigError, formatProblem, type ConfigProblem } from './problems.js';
export { loadConfig, DEFAULT_CONFIG_FILE, type LoadConfigInput } from './load-config.js';
export { describeConfig, integrationSummary, maskSecret } from './describe-config.js';
export { parseDuration, formatDuration } from '../config-kit/duration.js';
export { cronProblems } from './cron.js';
export { SECRET_VARIABLES } from './env-schema.js';
export { secretValues } from './secret-values.js';
export { routingTable } from './routing-table.js';
