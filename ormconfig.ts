// The DataSource the TypeORM CLI uses (npm run migration:run / migration:generate).
// It is built from the same validated configuration and options as the application.
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { databaseConfig } from './src/config/configuration.js';
import { migrationDataSourceOptions } from './src/data-source.js';

// databaseConfig() reads ./.env and validates the environment, as the service does.
export default new DataSource(await migrationDataSourceOptions(databaseConfig()));
