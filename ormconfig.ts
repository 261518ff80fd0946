// The DataSource the TypeORM CLI uses (npm run migration:run / migration:generate).
// It is built from the same validated configuration and options as the application.
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadDatabaseConfig, loadDotEnvFile } from './src/config/app.config.js';
import { migrationDataSourceOptions } from './src/data-source.js';

loadDotEnvFile();

export default new DataSource(await migrationDataSourceOptions(loadDatabaseConfig()));
