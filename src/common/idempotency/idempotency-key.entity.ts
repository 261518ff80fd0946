import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** The first answer to a creating request sent with an Idempotency-Key, per user and key, for 24 h. */
@Entity({ name: 'idempotency_keys' })
export class IdempotencyKey {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  userId: string;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  idempotencyKey: string;

  /** SHA-256 (hex) of the method, route and body the key was first used with. */
  @Column({ type: 'varchar', length: 64 })
  requestHash: string;

  /** Null while the first request is still at work. */
  @Column({ type: 'int', nullable: true })
  status: number | null;

  /** The first answer's JSON body. */
  @Column({ type: 'text', nullable: true })
  responseBody: string | null;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  location: string | null;

  @Index('IDX_idempotency_keys_expires')
  @Column({ type: 'datetime', precision: 3 })
  expiresAt: Date;
}
