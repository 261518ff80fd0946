import { Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { appConfig } from '../config/app.config.js';
import { buildDataSourceOptions } from './data-source-options.js';
import { MysqlDurabilityCheck } from './mysql-durability.check.js';

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
  providers: [MysqlDurabilityCheck],
})
export class DatabaseModule {}
