import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { User } from '../../users/entities/user.entity.js';
import type { ProjectRole } from '../project-role.js';
import { Project } from './project.entity.js';

/** One user's role in one project (see project-role.ts); a project keeps at least one manager. */
@Entity({ name: 'project_members' })
@Index('IDX_project_members_user', ['userId', 'projectId'])
export class ProjectMember {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  projectId: string;

  @PrimaryColumn({ type: 'varchar', length: 36 })
  userId: string;

  @Column({ type: 'varchar', length: 16 })
  role: ProjectRole;

  @Column({ type: 'datetime', precision: 3 })
  createdAt: Date;

  @ManyToOne(() => Project, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'projectId', foreignKeyConstraintName: 'FK_project_members_project' })
  project?: Project;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'userId', foreignKeyConstraintName: 'FK_project_members_user' })
  user?: User;
}
