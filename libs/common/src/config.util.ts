import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

/**
 * Reads a configuration class from the environment once, at boot, and stops the process with a
 * readable message when a variable is wrong rather than failing on first use.
 */
export function loadConfig<T extends object>(
  configClass: new () => T,
  env: NodeJS.ProcessEnv = process.env,
): T {
  const config = plainToInstance(configClass, env, {
    enableImplicitConversion: true,
    exposeDefaultValues: true,
  });
  const errors = validateSync(config, { whitelist: false, forbidUnknownValues: false });
  if (errors.length > 0) {
    const lines = errors.flatMap((error) =>
      Object.values(error.constraints ?? {}).map((message) => `  ${error.property}: ${message}`),
    );
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return config;
}
