import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';

interface DurabilitySettings {
  engine: string;
  flushLogAtCommit: number;
  tableEngines: string[];
}

/** The warnings a MySQL/MariaDB server's settings deserve; empty when they are as durable as we rely on. */
export function durabilityWarnings(settings: DurabilitySettings): string[] {
  const warnings: string[] = [];
  if (settings.engine.toLowerCase() !== 'innodb') {
    warnings.push(`default_storage_engine is ${settings.engine}; the service relies on InnoDB transactions.`);
  }
  const nonInnoDb = settings.tableEngines.filter((engine) => engine.toLowerCase() !== 'innodb');
  if (nonInnoDb.length) {
    warnings.push(`Some tables do not use InnoDB (${[...new Set(nonInnoDb)].join(', ')}); they are not transactional.`);
  }
  if (settings.flushLogAtCommit !== 1) {
    warnings.push(
      `innodb_flush_log_at_trx_commit is ${settings.flushLogAtCommit}: a crash can lose up to a second of committed ` +
        'updates. Set it to 1 for durable commits.',
    );
  }
  return warnings;
}

/** Checks at start-up that the MySQL server keeps committed writes; logs a warning when it does not. */
@Injectable()
export class MysqlDurabilityCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('Database');

  constructor(private readonly dataSource: DataSource) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.dataSource.options.type !== 'mysql') return;
    try {
      const [row] = await this.dataSource.query<{ engine: string; flush: number | string }[]>(
        'SELECT @@default_storage_engine AS engine, @@innodb_flush_log_at_trx_commit AS flush',
      );
      const tables = await this.dataSource.query<{ engine: string | null }[]>(
        'SELECT ENGINE AS engine FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = ?',
        ['BASE TABLE'],
      );
      const warnings = durabilityWarnings({
        engine: row.engine,
        flushLogAtCommit: Number(row.flush),
        tableEngines: tables.map((table) => table.engine ?? 'unknown'),
      });
      for (const warning of warnings) this.logger.warn(warning);
    } catch {
      this.logger.warn('Could not read the MySQL durability settings.');
    }
  }
}
