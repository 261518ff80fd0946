import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Who runs a cluster-wide job until when: one row per job name. */
@Entity({ name: 'job_leases' })
export class JobLease {
  @PrimaryColumn({ type: 'varchar', length: 100 })
  name!: string;

  @Column({ type: 'varchar', length: 100 })
  holder!: string;

  @Column({ type: 'datetime', precision: 3 })
  expiresAt!: Date;
}
