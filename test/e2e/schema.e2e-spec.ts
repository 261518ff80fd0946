import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseConfig } from '../../src/config/configuration.js';
import { validateEnvironment } from '../../src/config/environment.js';
import { MIGRATIONS, migrationDataSourceOptions } from '../../src/data-source.js';
import { DOCUMENT_SEARCH_TRIGGERS } from '../../src/migrations/1763800000018-DocumentSearchAndWorkflow.js';
import { createTestDatabase, databasesUnderTest, type DatabaseKind, type TestDatabase } from '../support/databases.js';

/** What the schema builder would still do: the statements `migration:generate` would draft. */
async function pendingSchemaChanges(dataSource: DataSource): Promise<string[]> {
  const log = await dataSource.driver.createSchemaBuilder().log();
  return log.upQueries.map((query) => query.query);
}

/** The triggers in the database, by name (TypeORM does not see them, so they are checked here). */
async function triggers(dataSource: DataSource, kind: DatabaseKind): Promise<string[]> {
  const rows = await dataSource.query<{ name: string }[]>(
    kind === 'sqlite'
      ? "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
      : 'SELECT TRIGGER_NAME AS name FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() ORDER BY name',
  );
  return rows.map((row) => row.name);
}

const COUNT_TRIGGERS = [
  'trg_notifications_count_delete',
  'trg_notifications_count_insert',
  'trg_notifications_count_update',
];
/** Moves the audit chain head with each chained event and refuses one that does not follow it. */
const AUDIT_CHAIN_TRIGGER = 'trg_audit_events_chain';
const CANONICAL_TABLES = [
  'audit_events',
  'document_comments',
  'document_watches',
  'document_contents',
  'document_fields',
  'document_field_values',
  'document_previews',
  'document_history',
  'document_locks',
  'document_review_reviewers',
  'document_reviews',
  'document_types',
  'document_versions',
  'documents',
  'jobs',
  'notification_preferences',
  'notification_stream_tickets',
  'notifications',
  'outbox_events',
  'pending_files',
  'job_leases',
  'webhooks',
  'webhook_deliveries',
  'saved_searches',
  'saved_search_matches',
  'audit_chain_head',
  'legal_holds',
  'legal_hold_documents',
  'retention_applications',
  'project_members',
  'project_watches',
  'projects',
  'roles',
  'share_links',
  'user_roles',
  'users',
];
const TRIGGERS: Record<DatabaseKind, string[]> = {
  mysql: [...COUNT_TRIGGERS, AUDIT_CHAIN_TRIGGER, ...DOCUMENT_SEARCH_TRIGGERS.mysql].toSorted(),
  sqlite: [
    ...COUNT_TRIGGERS,
    AUDIT_CHAIN_TRIGGER,
    ...DOCUMENT_SEARCH_TRIGGERS.sqlite,
    ...CANONICAL_TABLES.flatMap((table) => [`trg_${table}_canonical_insert`, `trg_${table}_canonical_update`]),
    'trg_notifications_unique_insert',
    'trg_notifications_unique_update',
  ].toSorted(),
};

/** A DataSource as the migration CLI (ormconfig.ts) builds it, on the given database. */
async function cliDataSource(database: TestDatabase, migrations = MIGRATIONS): Promise<DataSource> {
  const options = await migrationDataSourceOptions(
    databaseConfig.build(validateEnvironment({ DATABASE_URL: database.url })),
  );
  return new DataSource({ ...options, migrations }).initialize();
}

/**
 * The entities must declare exactly the schema the migrations create. TypeORM's schema builder
 * compares the two; `migration:generate` (MigrationGenerateCommand) writes exactly the upQueries of
 * `driver.createSchemaBuilder().log()` on the DataSource of ormconfig.ts, which is built as here.
 * So an empty log after `migration:run` means `migration:generate` drafts nothing.
 */
describe.each(databasesUnderTest())('schema on %s', (kind) => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    dataSource = await cliDataSource(database);
    await dataSource.runMigrations({ transaction: 'each' });
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('has no pending migration', async () => {
    expect(await dataSource.showMigrations()).toBe(false);
  });

  it('matches the entities exactly: the schema builder has nothing to do after every migration', async () => {
    const statements = await pendingSchemaChanges(dataSource);
    expect(statements, `schema diff after migration:run:\n${statements.join(';\n')}`).toEqual([]);
  });

  it('has the triggers that keep the counts exact (and, on SQLite, the stored forms canonical)', async () => {
    expect(await triggers(dataSource, kind)).toEqual(TRIGGERS[kind]);
  });

  it('reverts every migration and applies them again to the same schema', async () => {
    for (let step = 0; step < MIGRATIONS.length; step++) await dataSource.undoLastMigration({ transaction: 'each' });
    expect(await triggers(dataSource, kind)).toEqual([]);
    await dataSource.runMigrations({ transaction: 'each' });
    expect(await pendingSchemaChanges(dataSource)).toEqual([]);
    expect(await triggers(dataSource, kind)).toEqual(TRIGGERS[kind]);
  });
});

/**
 * Accounts that exist before UserIdentityKeys and fold to the same key. On MySQL the e-mail column's
 * utf8mb4_unicode_ci unique index already refuses addresses that differ only by case or width, so
 * only usernames (utf8mb4_bin) can clash there.
 */
const CLASHES: Record<DatabaseKind, { emails: [string, string]; named: string[] }> = {
  sqlite: {
    emails: ['Carol@Example.com', 'carol@example.COM'],
    named: ['usernames "Émile", "émile"', 'e-mail addresses of "carol", "dave"'],
  },
  mysql: { emails: ['carol@example.com', 'dave@example.com'], named: ['usernames "Émile", "émile"'] },
};

describe.each(databasesUnderTest())('the UserIdentityKeys migration on %s', (kind) => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const before = MIGRATIONS.findIndex((migration) => migration.name === 'UserIdentityKeys1763800000007');

  const addUser = (username: string, email: string) =>
    dataSource.query(
      `INSERT INTO users (id, username, email, firstName, lastName, passwordHash, isActive, tokenVersion, createdAt)
       VALUES (?, ?, ?, 'First', 'Last', 'x', 1, 0, '2025-06-01 12:00:00.000')`,
      [randomUUID(), username, email],
    );

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    dataSource = await cliDataSource(database, MIGRATIONS.slice(0, before));
    await dataSource.runMigrations({ transaction: 'each' });
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('stops, naming the accounts, when existing usernames or e-mail addresses differ only by case or form', async () => {
    await addUser('Émile', 'emile@example.com');
    await addUser('émile', 'other@example.com');
    await addUser('carol', CLASHES[kind].emails[0]);
    await addUser('dave', CLASHES[kind].emails[1]);
    await dataSource.destroy();
    dataSource = await cliDataSource(database);
    const failure = await dataSource.runMigrations({ transaction: 'each' }).then(
      () => 'applied',
      (error: unknown) => (error as Error).message,
    );
    for (const named of CLASHES[kind].named) expect(failure).toContain(named);
    // Nothing of it was applied: the users have no keys and the migration is still pending.
    expect(await dataSource.showMigrations()).toBe(true);
    const columns = await dataSource.createQueryRunner().getTable('users');
    expect(columns?.findColumnByName('usernameKey')).toBeUndefined();
  });

  it('fills both keys with identityKey() once the clash is resolved', async () => {
    await dataSource.query("UPDATE users SET username = 'emile2' WHERE username = 'émile'");
    await dataSource.query("UPDATE users SET email = 'dave@example.com' WHERE username = 'dave'");
    await dataSource.query("UPDATE users SET email = 'carol@example.com' WHERE username = 'carol'");
    await dataSource.runMigrations({ transaction: 'each' });
    const rows = await dataSource.query<{ username: string; usernameKey: string; emailKey: string }[]>(
      'SELECT username, usernameKey, emailKey FROM users ORDER BY usernameKey',
    );
    expect(rows).toEqual([
      { username: 'carol', usernameKey: 'carol', emailKey: 'carol@example.com' },
      { username: 'dave', usernameKey: 'dave', emailKey: 'dave@example.com' },
      { username: 'emile2', usernameKey: 'emile2', emailKey: 'other@example.com' },
      { username: 'Émile', usernameKey: 'émile', emailKey: 'emile@example.com' },
    ]);
    expect(await pendingSchemaChanges(dataSource)).toEqual([]);
  });
});

describe.each(databasesUnderTest())('the DocumentTypeNameKeysRequired migration on %s', (kind) => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const before = MIGRATIONS.findIndex((migration) => migration.name === 'DocumentTypeNameKeysRequired1763800000022');

  // As a writer that left the key out could (the column was nullable before this migration).
  const addType = (name: string, nameKey: string | null) =>
    dataSource.query(
      "INSERT INTO document_types (id, name, nameKey, description, createdAt) VALUES (?, ?, ?, '', '2025-06-01 12:00:00.000')",
      [randomUUID(), name, nameKey],
    );

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    dataSource = await cliDataSource(database, MIGRATIONS.slice(0, before));
    await dataSource.runMigrations({ transaction: 'each' });
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('stops, naming them, when a type without a key has the name of another ignoring case', async () => {
    // Names both databases store as different (MySQL's utf8mb4_unicode_ci predates U+A7B4/U+A7B5)
    // whose identity keys are the same.
    await addType('Ꞵeta', 'ꞵeta');
    await addType('ꞵeta', null);
    await addType('Ⓜemo', null);
    await dataSource.destroy();
    dataSource = await cliDataSource(database);
    const failure = await dataSource.runMigrations({ transaction: 'each' }).then(
      () => 'applied',
      (error: unknown) => (error as Error).message,
    );
    expect(failure).toContain('"Ꞵeta", "ꞵeta"');
    expect(await dataSource.showMigrations()).toBe(true);
    const table = await dataSource.createQueryRunner().getTable('document_types');
    expect(table?.findColumnByName('nameKey')?.isNullable).toBe(true);
  });

  it('fills the missing keys, then refuses a type without one, keeping the unique index and triggers', async () => {
    await dataSource.query("UPDATE document_types SET name = 'Beta 2' WHERE name = 'ꞵeta'");
    await dataSource.runMigrations({ transaction: 'each' });
    expect(
      await dataSource.query<{ name: string; nameKey: string }[]>(
        'SELECT name, nameKey FROM document_types ORDER BY nameKey',
      ),
    ).toEqual([
      { name: 'Beta 2', nameKey: 'beta 2' },
      { name: 'Ⓜemo', nameKey: 'memo' },
      { name: 'Ꞵeta', nameKey: 'ꞵeta' },
    ]);
    await expect(addType('Invoice', null)).rejects.toThrow(/null/i);
    // (a name no other type has: only the key's unique index can refuse it)
    await expect(addType('Other', 'memo')).rejects.toThrow(/UQ_document_types_name_key|document_types\.nameKey/);
    expect(await pendingSchemaChanges(dataSource)).toEqual([]);
    expect(await triggers(dataSource, kind)).toEqual(TRIGGERS[kind]);
  });
});
