import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasesUnderTest, testDataSource, type DatabaseKind } from '../support/databases.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/**
 * What external writers (batch jobs, imports, a SQL console) can do to the tables the service
 * reads: totals stay exact whatever statement writes notifications, and keyset comparisons never
 * mix two stored forms of one timestamp or id.
 */

/** UTC 'YYYY-MM-DD HH:MM:SS.SSS': how TypeORM stores datetime(3) on SQLite (and MySQL with timezone Z). */
const sqlTime = (date: Date) => date.toISOString().replace('T', ' ').replace('Z', '');
const STAMP = '2025-06-01 12:00:00.000';
const COLUMNS = 'id, userId, subject, message, notificationType, status, readAt, createdAt';
const INSERT = `INSERT INTO notifications (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;
const KINDS = databasesUnderTest();

/**
 * Writing an existing notification id again. SQLite's REPLACE deletes the old row without firing
 * its delete trigger, so the database refuses it; MySQL fires the delete (or update) triggers.
 */
const REWRITES: Record<DatabaseKind, { statements: string[]; outcome: RegExp }> = {
  sqlite: {
    statements: [
      INSERT.replace('INSERT INTO', 'INSERT OR REPLACE INTO'),
      INSERT.replace('INSERT INTO', 'REPLACE INTO'),
      `${INSERT} ON CONFLICT (id) DO UPDATE SET status = excluded.status`,
    ],
    outcome: /^refused: .*already exists/,
  },
  mysql: {
    statements: [
      INSERT.replace('INSERT INTO', 'REPLACE INTO'),
      `${INSERT} ON DUPLICATE KEY UPDATE status = VALUES(status)`,
    ],
    outcome: /^applied$/,
  },
};

/** Moving a notification onto an existing id: SQLite's OR REPLACE would delete the other row silently. */
const MOVE_ONTO_EXISTING_ID: Record<DatabaseKind, string> = {
  sqlite: 'UPDATE OR REPLACE notifications SET id = ? WHERE id = ?',
  mysql: 'UPDATE notifications SET id = ? WHERE id = ?',
};

/** One app per suite, logged in as bob, with helpers that compare the list's total with COUNT(*). */
function externalWriterSuite(kind: DatabaseKind) {
  const suite = {} as {
    t: TestApp;
    bob: string;
    token: string;
    row: (id: string, createdAt: string | number, status?: string) => unknown[];
    attempt: (sql: string, parameters?: unknown[]) => Promise<string>;
    totals: () => Promise<{ listed: number; counted: number }>;
  };
  beforeAll(async () => {
    const t = await createTestApp(kind);
    const bob = t.user('bob').id;
    const token = await t.login('bob');
    Object.assign(suite, {
      t,
      bob,
      token,
      row: (id: string, createdAt: string | number, status = 'sent') => [
        id,
        bob,
        'External',
        'Written with SQL.',
        'email',
        status,
        null,
        createdAt,
      ],
      // 'applied', or 'refused: <the database's message>'
      attempt: (sql: string, parameters: unknown[] = []) =>
        t.dataSource.query(sql, parameters).then(
          () => 'applied',
          (error: unknown) => `refused: ${(error as Error).message}`,
        ),
      totals: async () => {
        const response = await request(t.url)
          .get('/api/notifications')
          .query({ limit: 1 })
          .set('Authorization', `Bearer ${token}`);
        expect(response.status).toBe(200);
        const [{ n }] = await t.dataSource.query<{ n: number | string }[]>(
          'SELECT COUNT(*) AS n FROM notifications WHERE userId = ?',
          [bob],
        );
        return { listed: response.body.pagination.total as number, counted: Number(n) };
      },
    });
  });
  afterAll(async () => {
    await suite.t?.close();
  });
  return suite;
}

describe.each(KINDS)('writes from outside the service on %s', (kind) => {
  const s = externalWriterSuite(kind);

  it('keep pagination.total equal to COUNT(*) when an existing id is written again (REPLACE, upserts)', async () => {
    const id = randomUUID();
    const before = await s.totals();
    expect(before.listed).toBe(before.counted);
    expect(await s.attempt(INSERT, s.row(id, sqlTime(new Date())))).toBe('applied');
    const after = { listed: before.counted + 1, counted: before.counted + 1 };
    expect(await s.totals()).toEqual(after);

    for (const statement of REWRITES[kind].statements) {
      const outcome = await s.attempt(statement, s.row(id, sqlTime(new Date()), 'failed'));
      expect({ statement, totals: await s.totals() }).toEqual({ statement, totals: after });
      expect(outcome).toMatch(REWRITES[kind].outcome);
    }
  });

  it('keep the totals exact when an UPDATE moves a notification onto an existing id', async () => {
    const [first, second] = [randomUUID(), randomUUID()];
    for (const id of [first, second]) expect(await s.attempt(INSERT, s.row(id, sqlTime(new Date())))).toBe('applied');
    const before = await s.totals();
    expect(await s.attempt(MOVE_ONTO_EXISTING_ID[kind], [second, first])).toMatch(/^refused: /);
    expect(await s.totals()).toEqual(before);
  });

  it('in the stored form the database keeps, let a cursor walk see every row once, in order', async () => {
    // A user of their own, so the walk covers exactly these rows. On SQLite they are written in the
    // canonical form (the only one accepted); on MySQL also without milliseconds (as NOW() writes)
    // and with upper-case ids, which utf8mb4_unicode_ci compares like lower-case ones.
    const { t } = s;
    const erin = t.user('erin').id;
    await t.dataSource.query('DELETE FROM notifications WHERE userId = ?', [erin]);
    const base = Date.UTC(2025, 5, 1, 12);
    const written: { id: string; createdAt: string }[] = [];
    for (let index = 0; index < 12; index++) {
      const at = new Date(base + Math.floor(index / 3) * 1000); // three rows per timestamp
      const noMilliseconds = kind === 'mysql' && index % 3 === 1;
      const id = kind === 'mysql' && index % 2 ? randomUUID().toUpperCase() : randomUUID();
      const createdAt = noMilliseconds ? sqlTime(at).slice(0, 19) : sqlTime(at);
      expect(await s.attempt(INSERT, [id, erin, `Walk ${index}`, 'SQL', 'push', 'sent', null, createdAt])).toBe(
        'applied',
      );
      written.push({ id: id.toLowerCase(), createdAt: at.toISOString() });
    }
    const expected = written
      .toSorted((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
      .map((entry) => entry.id);

    const token = await t.login('erin');
    const page = (query: Record<string, string | number>) =>
      request(t.url).get('/api/notifications').query(query).set('Authorization', `Bearer ${token}`);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let step = 0; step <= written.length && (step === 0 || cursor); step++) {
      const response = await page(cursor ? { limit: 1, cursor } : { limit: 1 });
      expect(response.status).toBe(200);
      seen.push(...response.body.notifications.map((n: { id: string }) => n.id.toLowerCase()));
      cursor = response.body.pagination.nextCursor;
    }
    expect(seen).toEqual(expected);
    const last = await page({ page: 4, limit: 3 });
    expect(last.body.notifications.map((n: { id: string }) => n.id.toLowerCase())).toEqual(expected.slice(9, 12));
  });
});

describe.each(KINDS.filter((kind) => kind === 'sqlite'))('stored forms on %s', (kind) => {
  const s = externalWriterSuite(kind);

  it('refuses every other form of a timestamp or an id, on INSERT and on UPDATE of every table', async () => {
    const { t, bob, row } = s;
    // Written by the service: the history row it adds is in canonical form too.
    const put = await request(t.url)
      .put(`/api/documents/${t.seed.documents[0].id}`)
      .set('Authorization', `Bearer ${await t.login('admin')}`)
      .send({ title: 'Written by the service' });
    expect(put.status).toBe(200);

    const refused: [string, unknown[]][] = [
      // datetime('now') writes no milliseconds; ISO strings have T and Z; numbers are not text.
      [INSERT, row(randomUUID(), '2025-06-01 12:00:00')],
      [INSERT, row(randomUUID(), '2025-06-01T12:00:00.000Z')],
      [INSERT, row(randomUUID(), 1748779200000)],
      [INSERT, row(randomUUID(), '2025-02-30 12:00:00.000')],
      [INSERT, row(randomUUID().toUpperCase(), STAMP)],
      [INSERT, row('not-a-uuid', STAMP)],
      [INSERT, [randomUUID(), bob.toUpperCase(), 's', 'm', 'email', 'sent', null, STAMP]],
      [INSERT, [randomUUID(), bob, 's', 'm', 'email', 'read', '2025-06-01 12:00:01', STAMP]],
      ["UPDATE notifications SET createdAt = datetime('now') WHERE userId = ?", [bob]],
      ["UPDATE notifications SET readAt = '2025-06-01T12:00:00Z' WHERE userId = ?", [bob]],
      ['UPDATE notifications SET id = upper(id) WHERE userId = ?', [bob]],
      ["UPDATE documents SET updatedAt = datetime('now')", []],
      ['UPDATE documents SET uploadedBy = upper(uploadedBy)', []],
      ["UPDATE document_history SET changedAt = '2025-06-01T12:00:00.000Z'", []],
      ['UPDATE users SET id = upper(id)', []],
      ["UPDATE users SET createdAt = '2025-06-01'", []],
      ['UPDATE user_roles SET roleId = upper(roleId)', []],
      ["UPDATE projects SET createdAt = '2025-06-01 12:00'", []],
      ['UPDATE document_types SET id = upper(id)', []],
      ['UPDATE roles SET id = upper(id)', []],
    ];
    const before = await s.totals();
    for (const [sql, parameters] of refused) {
      expect({ sql, outcome: await s.attempt(sql, parameters) }).toEqual({
        sql,
        outcome: expect.stringMatching(/^refused: .*must be lower-case UUIDs/),
      });
    }
    expect(await s.totals()).toEqual(before);
    // The canonical form is accepted from SQL as from the service.
    expect(await s.attempt(INSERT, row(randomUUID(), STAMP))).toBe('applied');
  });
});

describe.each(KINDS.filter((kind) => kind === 'mysql'))('stored forms on %s', (kind) => {
  const s = externalWriterSuite(kind);

  it('stores a timestamp written in another form as the one DATETIME(3) value', async () => {
    const id = randomUUID();
    expect(await s.attempt(INSERT, s.row(id, '2025-06-01 12:00:00'))).toBe('applied');
    const [stored] = await s.t.dataSource.query<{ createdAt: string }[]>(
      'SELECT CAST(createdAt AS CHAR) AS createdAt FROM notifications WHERE id = ?',
      [id],
    );
    expect(stored.createdAt).toBe(STAMP);
  });
});

describe.each(KINDS.filter((kind) => kind === 'sqlite'))('another connection holding the write lock on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    // DB_TIMEOUT_MS was the busy wait before; it must no longer bound how long the process stops.
    t = await createTestApp(kind, { DB_TIMEOUT_MS: '5000' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keeps liveness answering, and a write is refused whole (503, Retry-After) or done after release', async () => {
    const token = await t.login('admin');
    const projects = async () => (await t.dataSource.query<{ n: number }[]>('SELECT COUNT(*) AS n FROM projects'))[0].n;
    const before = await projects();
    const other = await testDataSource(t.database).initialize();
    await other.query('BEGIN IMMEDIATE');
    let held = true;
    try {
      const write = request(t.url)
        .post('/api/projects')
        .set('authorization', `Bearer ${token}`)
        .send({ name: `Under lock ${randomUUID()}` })
        .then((response) => ({ response, duringLock: held }));
      const started = performance.now();
      const live = await request(t.url).get('/health/live');
      const liveMs = performance.now() - started;
      expect(live.status).toBe(200);
      expect(held).toBe(true);
      // The old busy wait stopped the process for DB_TIMEOUT_MS per attempt.
      expect(liveMs).toBeLessThan(t.config.database.timeoutMs);
      const settled = await Promise.race([write, Promise.resolve(undefined)]);
      await other.query('ROLLBACK');
      held = false;
      const { response, duringLock } = settled ?? (await write);
      const refused = response.status === 503;
      expect([
        { status: 503, created: 0, duringLock: true, retryAfter: true },
        { status: 201, created: 1, duringLock: null, retryAfter: null },
      ]).toContainEqual({
        status: response.status,
        created: (await projects()) - before,
        duringLock: refused ? duringLock : null,
        retryAfter: refused ? Number(response.headers['retry-after']) > 0 : null,
      });
    } finally {
      if (held) await other.query('ROLLBACK');
      await other.destroy();
    }
  });
});
