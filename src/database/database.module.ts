import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { TypeOrmModule, type TypeOrmModuleOptions } from '@nestjs/typeorm';
import type { DataSourceOptions } from 'typeorm';
import { databaseConfig } from '../config/configuration.js';
import { buildDataSourceOptions } from './data-source-options.js';
import { MysqlDurabilityCheck } from './mysql-durability.check.js';
import { Transactions } from './transactions.js';

/** What the composition root hands the database core: every feature's entities and the migrations. */
export interface DatabaseSchema {
  entities: NonNullable<DataSourceOptions['entities']>;
  migrations: NonNullable<DataSourceOptions['migrations']>;
}

/** Global: every feature's repository reads through the same connection and one transaction API. */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(schema: DatabaseSchema): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [databaseConfig.KEY],
          useFactory: (config: ConfigType<typeof databaseConfig>): TypeOrmModuleOptions => ({
            ...buildDataSourceOptions(config),
            ...schema,
            migrationsRun: config.migrationsRun,
            retryAttempts: 3,
            retryDelay: 2000,
          }),
        }),
      ],
      providers: [MysqlDurabilityCheck, Transactions],
      exports: [Transactions],
    };
  }
}
