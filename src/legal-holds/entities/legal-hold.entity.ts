import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { Project } from '../../projects/entities/project.entity.js';
import { User } from '../../users/entities/user.entity.js';

/**
 * A legal hold: while it exists, the documents it names, and with a projectId every document of
 * that project (present and future), cannot be trashed, purged or retained away. Releasing it
 * deletes it. Declares exactly what migration 1763800000136 creates.
 */
@Entity({ name: 'legal_holds' })
@Index('IDX_legal_holds_project', ['projectId'])
export class LegalHold {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'text' })
  reason: string;

  @Column({ type: 'varchar', length: 36, nullable: true })
  @ForeignKey(() => Project, { name: 'FK_legal_holds_project', onDelete: 'RESTRICT' })
  projectId: string | null;

  @Column({ type: 'varchar', length: 36 })
  @ForeignKey(() => User, { name: 'FK_legal_holds_creator', onDelete: 'RESTRICT' })
  createdBy: string;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;
}
