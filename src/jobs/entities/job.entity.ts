import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export const JOB_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * One unit of background work (src/jobs). `queued` jobs run from `runAfter`; a `running` job is
 * its claimer's until `leaseUntil`, after which any instance may claim it again (its worker died).
 * No foreign keys: a job outlives what it names, and its handler decides what a vanished subject means.
 */
@Entity({ name: 'jobs' })
@Index('IDX_jobs_due', ['status', 'runAfter'])
@Index('IDX_jobs_subject', ['kind', 'subject'])
export class Job {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 64 })
  kind: string;

  /** What the job works on, e.g. "<documentId>:<version>": handlers and administrators find jobs by it. */
  @Column({ type: 'varchar', length: 128 })
  subject: string;

  @Column({ type: 'json' })
  payload: Record<string, unknown>;

  @Column({ type: 'varchar', length: 16 })
  status: JobStatus;

  /** Claims so far (a claim whose worker died counts too). */
  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ type: 'datetime', precision: 3 })
  runAfter: Date;

  @Column({ type: 'varchar', length: 64, nullable: true })
  claimedBy: string | null;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  leaseUntil: Date | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  lastError: string | null;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;

  @Column({ type: 'datetime', precision: 3 })
  updatedAt: Date;
}
