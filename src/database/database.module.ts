import { Global, Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { appConfig } from '../config/app.config.js';
import { buildDataSourceOptions } from './data-source-options.js';
import { HotPathSql } from './hot-path-sql.js';
import { MysqlDurabilityCheck } from './mysql-durability.check.js';

/** Global: every feature module's hot path reads through the same HotPathSql. */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [appConfig.KEY],
      useFactory: (config: ConfigType<typeof appConfig>) => ({
        ...buildDataSourceOptions(config),
        migrationsRun: config.migrationsRun,
        retryAttempts: 3,
        retryDelay: 2000,
      }),
    }),
  ],
  providers: [MysqlDurabilityCheck, HotPathSql],
  exports: [HotPathSql],
})
export class DatabaseModule {}
