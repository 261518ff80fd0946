import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One field's value before and after a change (null where it did not exist). */
export interface FieldChange {
  from: unknown;
  to: unknown;
}

export type AuditChanges = Record<string, FieldChange>;

/**
 * One recorded decision: who (actorId, null for an anonymous login attempt) did what (action) to
 * which object (targetType, targetId), from where (ip, requestId), changing which fields. Rows are
 * only ever inserted: no code path updates or deletes them. Each is a link of the hash chain
 * (audit-chain.ts): sequence, previousHash and hash are null only on events recorded before the
 * chain began (migration 1763800000135). Declares exactly what migrations 1763800000020 and
 * 1763800000135 create.
 */
@Entity({ name: 'audit_events' })
@Index('IDX_audit_events_at', ['at', 'id'])
@Index('IDX_audit_events_actor', ['actorId', 'at'])
@Index('IDX_audit_events_target', ['targetType', 'targetId', 'at'])
@Index('IDX_audit_events_action', ['action', 'at'])
@Index('IDX_audit_events_sequence', ['sequence'], { unique: true })
export class AuditEvent {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'datetime', precision: 3 })
  at: Date;

  @Column({ type: 'varchar', length: 36, nullable: true })
  actorId: string | null;

  @Column({ type: 'varchar', length: 64 })
  action: string;

  @Column({ type: 'varchar', length: 32 })
  targetType: string;

  @Column({ type: 'varchar', length: 36, nullable: true })
  targetId: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip: string | null;

  @Column({ type: 'varchar', length: 128, nullable: true })
  requestId: string | null;

  @Column({ type: 'simple-json' })
  changes: AuditChanges;

  /** Position in the chain, 1, 2, 3… without gaps. */
  @Column({
    type: 'bigint',
    nullable: true,
    transformer: { to: (v: number | null) => v, from: (v: string | number | null) => (v === null ? null : Number(v)) },
  })
  sequence: number | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  previousHash: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  hash: string | null;
}
