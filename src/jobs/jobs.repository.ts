import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, In, type Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import type { Tx } from '../database/transactions.js';
import { Job } from './entities/job.entity.js';

/** The jobs table: enqueueing, claiming by conditional UPDATE, and settling a claim. */
@Injectable()
export class JobsRepository {
  private readonly jobs: Repository<Job>;

  constructor(private readonly dataSource: DataSource) {
    this.jobs = dataSource.getRepository(Job);
  }

  /** Queues a job in the caller's transaction: it exists exactly when the change that wants it commits. */
  async enqueue(tx: Tx, kind: string, subject: string, payload: Record<string, unknown>, now: Date): Promise<string> {
    const job = Object.assign(new Job(), {
      id: randomUUID(),
      kind,
      subject,
      payload,
      status: 'queued',
      attempts: 0,
      runAfter: now,
      claimedBy: null,
      leaseUntil: null,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    } satisfies Job);
    // TypeORM types a json column's value as a nested entity; the payload is plain JSON.
    await tx.getRepository(Job).insert(job as QueryDeepPartialEntity<Job>);
    return job.id;
  }

  /** Ids of jobs of `kinds` that may be claimed now: due queued ones, and running ones whose lease ended. */
  async claimable(kinds: readonly string[], now: Date, limit: number): Promise<string[]> {
    const rows = await this.jobs
      .createQueryBuilder('j')
      .select('j.id', 'id')
      .where('j.kind IN (:...kinds)', { kinds })
      .andWhere("((j.status = 'queued' AND j.runAfter <= :now) OR (j.status = 'running' AND j.leaseUntil <= :now))", {
        now,
      })
      .orderBy('j.runAfter', 'ASC')
      .limit(limit)
      .getRawMany<{ id: string }>();
    return rows.map((row) => row.id);
  }

  /**
   * Claims one job for `worker` until `leaseUntil` if it is still claimable (another instance may
   * have taken it since it was read): the UPDATE's condition decides, so exactly one claimer wins.
   */
  async claim(tx: Tx, id: string, worker: string, now: Date, leaseUntil: Date): Promise<Job | null> {
    const result = await tx
      .createQueryBuilder()
      .update(Job)
      .set({ status: 'running', claimedBy: worker, leaseUntil, updatedAt: now, attempts: () => 'attempts + 1' })
      .where('id = :id', { id })
      .andWhere("((status = 'queued' AND runAfter <= :now) OR (status = 'running' AND leaseUntil <= :now))", { now })
      .execute();
    if (!result.affected) return null;
    return tx.getRepository(Job).findOneBy({ id });
  }

  /**
   * Ends `worker`'s claim: done, queued again at `retryAt`, or failed. Nothing happens when the
   * claim was lost (its lease ended and another worker took the job): that worker settles it.
   */
  async settle(
    tx: Tx,
    id: string,
    worker: string,
    now: Date,
    outcome:
      { status: 'done' } | { status: 'queued'; retryAt: Date; error: string } | { status: 'failed'; error: string },
  ): Promise<boolean> {
    const result = await tx
      .createQueryBuilder()
      .update(Job)
      .set({
        status: outcome.status,
        claimedBy: null,
        leaseUntil: null,
        updatedAt: now,
        ...(outcome.status === 'queued' ? { runAfter: outcome.retryAt } : {}),
        ...(outcome.status === 'done' ? {} : { lastError: outcome.error.slice(0, 500) }),
      })
      .where("id = :id AND status = 'running' AND claimedBy = :worker", { id, worker })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Jobs of `kind` by subject and status (administration and tests). */
  async find(kind: string, subjects: readonly string[]): Promise<Job[]> {
    if (subjects.length === 0) return [];
    return this.jobs.findBy({ kind, subject: In([...subjects]) });
  }

  /** Whether a job of `kind` on `subject` is waiting or running (re-queueing does not add a second one). */
  async hasOpen(tx: Tx, kind: string, subject: string): Promise<boolean> {
    return tx.getRepository(Job).exists({ where: { kind, subject, status: In(['queued', 'running']) } });
  }
}
