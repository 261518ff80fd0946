import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { Project } from '../../projects/entities/project.entity.js';
import { User } from '../../users/entities/user.entity.js';

/** A user hearing of every document event in one project (of the documents they may read). */
@Entity({ name: 'project_watches' })
@Index('IDX_project_watches_user', ['userId'])
export class ProjectWatch {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => Project, { name: 'FK_project_watches_project', onDelete: 'CASCADE' })
  projectId: string;

  @PrimaryColumn({ type: 'varchar', length: 36 })
  @ForeignKey(() => User, { name: 'FK_project_watches_user', onDelete: 'CASCADE' })
  userId: string;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;
}
