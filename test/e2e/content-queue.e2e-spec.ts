import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Job } from '../../src/jobs/entities/job.entity.js';
import { settledDocument, uploadDocument } from '../support/content.js';
import { textPng } from '../support/content-files.js';
import { waitFor } from '../support/inbox.js';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/** One word per note, read back by OCR. */
const WORDS = ['harbour', 'lantern', 'meadow', 'orchard', 'saddle', 'thimble'];

describe.each(databasesUnderTest())('the content job queue on %s', (kind) => {
  let t: TestApp;
  let token: string;
  const ids: string[] = [];

  beforeAll(async () => {
    t = await createTestApp(kind, { CONTENT_WORKERS: '1' });
    token = await t.login('alice');
  });

  afterAll(async () => {
    await t?.close();
  });

  const jobsOf = (documentIds: readonly string[]) =>
    t.dataSource
      .getRepository(Job)
      .find({ where: documentIds.map((id) => ({ kind: 'content.extract', subject: `${id}:1` })) });

  it('finishes every job exactly once across a restart in the middle of the queue', async () => {
    // Pictures of text: each needs OCR, long enough that the restart finds one job running and others queued.
    const uploads = await Promise.all(
      Array.from({ length: 6 }, async (_, index) =>
        uploadDocument(t, token, t.seed.projects[0].id, `note-${index}.png`, await textPng(`Note ${WORDS[index]}`)),
      ),
    );
    ids.push(...uploads.map((document) => document.id as string));
    const atRestart = await waitFor(async () => {
      const jobs = await jobsOf(ids);
      return jobs.some((job) => job.status === 'running') && jobs;
    }, 'a running extraction job');
    expect(atRestart.filter((job) => job.status === 'queued').length).toBeGreaterThan(0);
    await t.restart();
    token = await t.login('alice');
    for (const [index, id] of ids.entries()) {
      expect((await settledDocument(t, token, id)).content.status).toBe('indexed');
      const text = await fetch(`${t.url}/api/documents/${id}/text`, { headers: { authorization: `Bearer ${token}` } });
      expect((await text.text()).toLowerCase()).toContain(WORDS[index]);
    }
    const jobs = await jobsOf(ids);
    expect(jobs.map((job) => ({ status: job.status, attempts: job.attempts, claimedBy: job.claimedBy }))).toEqual(
      ids.map(() => ({ status: 'done', attempts: 1, claimedBy: null })),
    );
    const [{ n }] = await t.dataSource.query<{ n: number | string }[]>(
      `SELECT COUNT(*) AS n FROM document_contents WHERE documentId IN (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    expect(Number(n)).toBe(ids.length);
  }, 120_000);

  it("runs a dead worker's job again once its lease has ended", async () => {
    const [job] = await jobsOf([ids[0]]);
    // As a worker killed mid-run leaves it: running, claimed, its lease over, nothing recorded.
    await t.dataSource.query('DELETE FROM document_contents WHERE documentId = ?', [ids[0]]);
    await t.dataSource
      .getRepository(Job)
      .update(
        { id: job.id },
        { status: 'running', claimedBy: 'killed-worker', leaseUntil: new Date(Date.now() - 1000) },
      );
    expect((await settledDocument(t, token, ids[0])).content.status).toBe('indexed');
    const [again] = await jobsOf([ids[0]]);
    expect({ status: again.status, attempts: again.attempts, claimedBy: again.claimedBy }).toEqual({
      status: 'done',
      attempts: 2,
      claimedBy: null,
    });
  }, 60_000);
});
