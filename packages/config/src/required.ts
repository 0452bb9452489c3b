import type { Config } from './config';

/**
 * Settings a gateway or a worker cannot start without. `npm start` fills them in itself; every
 * other deployment sets them (test/compose.test.ts checks docker-compose.yml does).
 */
export const REQUIRED_APP_SETTINGS = ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'SVC_ENCRYPTION_KEY'] as const;

export type RequiredAppSetting = (typeof REQUIRED_APP_SETTINGS)[number];

/** The config, with the required settings known to be present; fails fast naming every missing one. */
export function requireAppSettings(config: Config): Config & { [K in RequiredAppSetting]: string } {
  const missing = REQUIRED_APP_SETTINGS.filter((name) => !config[name]);
  if (missing.length) throw new Error(`Missing required settings: ${missing.join(', ')}`);
  return config as Config & { [K in RequiredAppSetting]: string };
}
