// The migration CLI and the demo seed, run as real processes on dist/, on SQLite and on MySQL.
import { join } from 'node:path';
import { verify } from '@node-rs/argon2';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/data-source.js';
import type { SeedSummary } from '../../src/seed/demo-seed.js';
import { Document } from '../../src/documents/entities/document.entity.js';
import {
  NOTIFICATION_STATUSES,
  NOTIFICATION_TYPES,
  Notification,
} from '../../src/notifications/entities/notification.entity.js';
import { createTestDatabase, databasesUnderTest, type TestDatabase } from '../support/databases.js';
import {
  ROOT,
  dist,
  SEED,
  SEED_PASSWORD,
  ARGON2_PREFIX,
  run,
  expectSuccess,
  expectCleanFailure,
  openDataSource,
  counts,
  findUser,
  prepareCliRuns,
} from '../support/cli.js';

prepareCliRuns();

describe.each(databasesUnderTest())('the migration CLI and the seed on %s', (kind) => {
  describe('migration:run (the TypeORM CLI on dist/ormconfig.js)', () => {
    let database: TestDatabase;
    const migrate = () =>
      run([join(ROOT, 'node_modules/typeorm/cli.js'), 'migration:run', '-d', dist('ormconfig.js')], {
        DATABASE_URL: database.url,
        NODE_ENV: 'production',
      });

    beforeAll(async () => {
      database = await createTestDatabase(kind);
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('brings an empty database to the latest schema, and a second run is a no-op', async () => {
      const first = await migrate();
      expectSuccess(first);

      const dataSource = await openDataSource(database);
      try {
        const queryRunner = dataSource.createQueryRunner();
        const missing = [];
        for (const table of ['users', 'roles', 'user_roles', 'documents', 'notifications', 'notification_counts']) {
          if (!(await queryRunner.hasTable(table))) missing.push(table);
        }
        expect(missing).toEqual([]);
        await queryRunner.release();
        expect(await dataSource.showMigrations()).toBe(false); // false: nothing pending
        const applied = await dataSource.query('SELECT name FROM migrations ORDER BY id');
        expect(applied.map((row: { name: string }) => row.name)).toEqual(MIGRATIONS.map((migration) => migration.name));

        const second = await migrate();
        expectSuccess(second);
        expect(second.stdout).toMatch(/No migrations are pending/);
        expect(await dataSource.query('SELECT name FROM migrations ORDER BY id')).toEqual(applied);
      } finally {
        await dataSource.destroy();
      }
    });
  });

  describe('seed', () => {
    let database: TestDatabase;
    let dataSource: DataSource;
    const seed = (env: Record<string, string> = {}) =>
      run([SEED, '--json'], { DATABASE_URL: database.url, NODE_ENV: 'development', ...env });

    beforeAll(async () => {
      database = await createTestDatabase(kind);
      dataSource = await openDataSource(database);
    });
    afterAll(async () => {
      await dataSource?.destroy();
      await database?.drop();
    });

    it('refuses a SEED_PASSWORD the password policy refuses, naming the reason', async () => {
      const result = await seed({ SEED_PASSWORD: 'password1234' });
      expectCleanFailure(result, /Seed refused: SEED_PASSWORD is refused for admin: The password is too easy to guess/);
    });

    it('refuses in production without SEED_PASSWORD, even on an empty database', async () => {
      const result = await seed({ NODE_ENV: 'production' });
      expectCleanFailure(result, /SEED_PASSWORD/);
      expect(await counts(dataSource)).toEqual({ users: 0, documents: 0, notifications: 0 });
    });

    it('fills an empty database and prints the summary as JSON on its last line', async () => {
      const result = await seed({ SEED_PASSWORD });
      expectSuccess(result);
      const summary = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as SeedSummary;

      expect(summary.users.length).toBeGreaterThanOrEqual(3);
      for (const user of summary.users) {
        expect(user).toEqual({
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          username: expect.any(String),
          password: SEED_PASSWORD,
          roles: expect.any(Array),
        });
      }
      expect(summary.users.some((user) => user.roles.includes('admin'))).toBe(true);
      const userIds = summary.users.map((user) => user.id);
      expect(summary.documents.length).toBeGreaterThanOrEqual(6);
      for (const document of summary.documents) {
        expect(document).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), uploadedBy: expect.any(String) });
        expect(userIds).toContain(document.uploadedBy);
      }
      const [busiest, busiestCount] = Object.entries(summary.notifications).sort(([, a], [, b]) => b - a)[0];
      expect(busiestCount).toBeGreaterThanOrEqual(60);

      // The summary is what the database holds.
      expect(await counts(dataSource)).toEqual({
        users: summary.users.length,
        documents: summary.documents.length,
        notifications: Object.values(summary.notifications).reduce((a, b) => a + b, 0),
      });
      for (const [userId, count] of Object.entries(summary.notifications)) {
        expect(await dataSource.getRepository(Notification).countBy({ userId })).toBe(count);
      }
      const admin = await findUser(dataSource, summary.users.find((user) => user.roles.includes('admin'))!.username);
      expect(admin!.passwordHash.startsWith(ARGON2_PREFIX)).toBe(true);
      expect(await verify(admin!.passwordHash, SEED_PASSWORD)).toBe(true);
      const documents = await dataSource.getRepository(Document).find();
      expect(new Set(documents.map((document) => document.status))).toEqual(new Set(['draft']));

      // The busiest user's notifications cover every status x type pair; readAt is set exactly on the read ones.
      const notifications = await dataSource.getRepository(Notification).findBy({ userId: busiest });
      const pairs = new Set(notifications.map((n) => `${n.status}/${n.notificationType}`));
      expect(pairs.size).toBe(NOTIFICATION_STATUSES.length * NOTIFICATION_TYPES.length);
      expect(notifications.filter((n) => (n.readAt !== null) !== (n.status === 'read'))).toEqual([]);
    });

    it('refuses a second run with a clear message and changes nothing', async () => {
      const before = await counts(dataSource);
      const result = await seed({ SEED_PASSWORD });
      expectCleanFailure(result, /already has users/);
      expect(await counts(dataSource)).toEqual(before);
    });
  });
});
