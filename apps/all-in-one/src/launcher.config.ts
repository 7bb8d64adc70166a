import { IsIn, IsInt, IsString, Matches, Max, Min } from 'class-validator';

/** Every app, in start order: the services first, so the gateway's first request finds them. */
export const ALL_APPS = ['catalog', 'database', 'events', 'agent', 'workflow', 'runner', 'gateway'] as const;
export type AppName = (typeof ALL_APPS)[number];

const APP_LIST = new RegExp(`^\\s*(${ALL_APPS.join('|')})(\\s*,\\s*(${ALL_APPS.join('|')}))*\\s*$`);

export class LauncherConfig {
  /** The apps this process runs, comma-separated; all of them by default. */
  @IsString()
  @Matches(APP_LIST, { message: `SERVICES must list some of: ${ALL_APPS.join(', ')}` })
  SERVICES: string = ALL_APPS.join(',');

  /** Brings each app's schema up to date before starting it (each migration takes a lock of its own). */
  @IsIn(['true', 'false'])
  MIGRATE_ON_START: 'true' | 'false' = 'true';

  /** How long the apps may take to stop, one after another, before the process exits anyway. */
  @IsInt()
  @Min(1000)
  STOP_TIMEOUT_MS: number = 20_000;

  /** Where the probes are served when the gateway, which otherwise answers them, is not in this process. */
  @IsInt()
  @Min(0)
  @Max(65535)
  HEALTH_PORT: number = 3100;

  get apps(): AppName[] {
    const wanted = new Set(this.SERVICES.split(',').map((name) => name.trim()));
    return ALL_APPS.filter((name) => wanted.has(name));
  }
}
