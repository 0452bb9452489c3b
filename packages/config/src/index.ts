export { APP_PROCESS_ENV_DEFAULTS, loadConfig, configSchema } from './config';
export type { Config } from './config';
export { createLogger } from './logger';
export type { Logger } from './logger';
export { signalReady, isReadyMessage } from './ready';
export { REQUIRED_APP_SETTINGS, requireAppSettings } from './required';
export { DurationError, MAX_DURATION_MS, MS_PER_UNIT, formatDuration, parseDuration, tryParseDuration } from './duration';
export type { DurationUnit, ParseDurationOptions } from './duration';
