import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'projects' })
export class Project {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ type: 'varchar', length: 2000, default: '' })
  description: string;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;
}
