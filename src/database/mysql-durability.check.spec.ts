import { describe, expect, it } from 'vitest';
import { durabilityWarnings } from './mysql-durability.check.js';

describe('durabilityWarnings', () => {
  it('is silent for InnoDB with a flush at every commit', () => {
    expect(durabilityWarnings({ engine: 'InnoDB', flushLogAtCommit: 1, tableEngines: ['InnoDB', 'InnoDB'] })).toEqual(
      [],
    );
  });

  it('warns about a relaxed flush, another engine, or non-InnoDB tables', () => {
    const warnings = durabilityWarnings({ engine: 'MyISAM', flushLogAtCommit: 2, tableEngines: ['InnoDB', 'MyISAM'] });
    expect(warnings).toHaveLength(3);
    expect(warnings.join(' ')).toMatch(/default_storage_engine is MyISAM/);
    expect(warnings.join(' ')).toMatch(/innodb_flush_log_at_trx_commit is 2/);
    expect(warnings.join(' ')).toMatch(/do not use InnoDB \(MyISAM\)/);
  });
});
