import { DataSource, type DataSourceOptions, type EntitySchema, type MixedList } from 'typeorm';

export interface ServiceDataSourceOptions {
  url: string;
  /** The service's own Postgres schema: no other service reads it. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function | string>;
  poolSize?: number;
}

export function dataSourceOptions(options: ServiceDataSourceOptions): DataSourceOptions {
  return {
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    // Expected failures (a unique name taken) are answered as domain errors, and unexpected ones are
    // logged once with an error id by the service's exception filter.
    logging: false,
    extra: { max: options.poolSize ?? 10, application_name: options.schema },
  };
}

/**
 * Brings the service's schema up to date. An advisory lock keyed by the schema lets several replicas
 * start at once: one migrates, the others wait and then find nothing to do.
 */
export async function migrate(options: ServiceDataSourceOptions): Promise<string[]> {
  const dataSource = new DataSource(dataSourceOptions({ ...options, poolSize: 2 }));
  await dataSource.initialize();
  const runner = dataSource.createQueryRunner();
  try {
    await runner.connect();
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`migrate:${options.schema}`]);
    await runner.query(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`migrate:${options.schema}`]);
    return applied.map((migration) => migration.name);
  } finally {
    await runner.release();
    await dataSource.destroy();
  }
}
