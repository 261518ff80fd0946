import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The end of the audit chain: one row (id 1), locked and moved forward by every audited
 * transaction, so two writers can never chain from the same event. Declares exactly what
 * migration 1763800000135 creates.
 */
@Entity({ name: 'audit_chain_head' })
export class AuditChainHead {
  @PrimaryColumn({ type: 'integer' })
  id: number;

  /** Events chained so far: the sequence of the last one (0 before the first). */
  @Column({ type: 'bigint', transformer: { to: (v: number) => v, from: (v: string | number) => Number(v) } })
  sequence: number;

  /** The last event's hash (GENESIS_HASH before the first). */
  @Column({ type: 'varchar', length: 64 })
  hash: string;

  /** The last event's time: the next is never earlier, so a time range is a range of sequences. */
  @Column({ type: 'datetime', precision: 3 })
  at: Date;
}
