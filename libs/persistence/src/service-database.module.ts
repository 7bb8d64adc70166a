import { type DynamicModule, Global, Module } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { dataSourceOptions, type ServiceDataSourceOptions } from './data-source.factory.js';
import { KYSELY, kyselyOn } from './kysely.js';

/**
 * A service's Postgres data source, registered under the service's schema name rather than
 * TypeORM's "default". Services sharing one process (the all-in-one mode) each have their own Nest
 * container, but `@nestjs/typeorm` keeps one process-wide list of data source names and warns of a
 * clash between them; a name per service keeps that list true. The data source is also provided as
 * the plain `DataSource`, which is what `@InjectDataSource()` and Terminus's checks look up, so the
 * service's code does not change. Its typed query builder (`@InjectKysely()`) runs on the same pool.
 */
@Global()
@Module({})
export class ServiceDatabaseModule {
  static forRoot(options: ServiceDataSourceOptions): DynamicModule {
    const name = options.schema;
    return {
      module: ServiceDatabaseModule,
      imports: [TypeOrmModule.forRoot({ ...dataSourceOptions(options), name })],
      providers: [
        { provide: DataSource, useExisting: getDataSourceToken(name) },
        { provide: KYSELY, useFactory: kyselyOn, inject: [getDataSourceToken(name)] },
      ],
      exports: [DataSource, KYSELY],
    };
  }
}
