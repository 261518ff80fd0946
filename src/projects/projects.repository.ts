import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository, type SelectQueryBuilder } from 'typeorm';
import { isUniqueViolation } from '../database/database-errors.js';
import type { Tx } from '../database/transactions.js';
import type { DomainEvent } from '../events/domain-event.js';
import { OutboxRepository } from '../events/outbox.repository.js';
import { User } from '../users/entities/user.entity.js';
import { ProjectMember } from './entities/project-member.entity.js';
import { Project } from './entities/project.entity.js';
import { isProjectRole, type ProjectRole } from './project-role.js';

/** A project with the viewer's role in it (null: not a member). */
export interface ProjectWithRole {
  project: Project;
  role: ProjectRole | null;
}

/** One member as the member list shows it. */
export interface ProjectMemberView {
  userId: string;
  username: string;
  role: ProjectRole;
}

/** A project's editable fields. */
export type EditableProjectFields = Partial<Pick<Project, 'name' | 'description'>>;

/** Another writer inserted the same member first. */
export class MemberAlreadyAddedError extends Error {
  override name = 'MemberAlreadyAddedError';
}

// The project's other managers through a derived table: MySQL refuses an UPDATE or DELETE whose
// subquery reads the changed table directly (error 1093).
const OTHER_MANAGER_EXISTS =
  "EXISTS (SELECT 1 FROM (SELECT userId FROM project_members WHERE projectId = :projectId AND role = 'manager') managers " +
  'WHERE managers.userId <> :userId)';

/**
 * Every statement of projects and their members, through TypeORM. Writes take the Tx of
 * Transactions.run, so the outbox event and audit entry of a change commit with it.
 */
@Injectable()
export class ProjectsRepository {
  constructor(
    @InjectRepository(Project) private readonly projects: Repository<Project>,
    @InjectRepository(ProjectMember) private readonly memberships: Repository<ProjectMember>,
    private readonly outbox: OutboxRepository,
  ) {}

  /** The user's role in the project, or null when they are not a member (or the project does not exist). */
  roleOf(userId: string, projectId: string): Promise<ProjectRole | null> {
    return this.roleIn(this.memberships.manager, projectId, userId);
  }

  /** Every member's user id (notification recipients). */
  async memberIds(projectId: string): Promise<string[]> {
    const members = await this.memberships.find({ select: { userId: true }, where: { projectId } });
    return members.map((member) => member.userId);
  }

  /** The project with the viewer's role in it, or null when no project has this id. */
  async findWithRole(projectId: string, viewerId: string): Promise<ProjectWithRole | null> {
    const [found] = await withRoles(this.withViewerRole(viewerId).where('p.id = :projectId', { projectId }));
    return found ?? null;
  }

  /** The projects the user is a member of, by name then id (through IDX_project_members_user). */
  pageOfMember(userId: string, limit: number, offset: number): Promise<ProjectWithRole[]> {
    const query = this.projects
      .createQueryBuilder('p')
      .innerJoin(ProjectMember, 'm', 'm.projectId = p.id AND m.userId = :userId', { userId })
      .addSelect('m.role', 'viewerRole');
    return withRoles(page(query, limit, offset));
  }

  countOfMember(userId: string): Promise<number> {
    return this.memberships.countBy({ userId });
  }

  /** Every project, by name then id, with the viewer's role in each. */
  pageOfAll(viewerId: string, limit: number, offset: number): Promise<ProjectWithRole[]> {
    return withRoles(page(this.withViewerRole(viewerId), limit, offset));
  }

  countAll(): Promise<number> {
    return this.projects.count();
  }

  /** Every member with their username, by username then user id. */
  async members(projectId: string): Promise<ProjectMemberView[]> {
    const rows = await this.memberships
      .createQueryBuilder('m')
      .innerJoin(User, 'u', 'u.id = m.userId')
      .select('m.userId', 'userId')
      .addSelect('u.username', 'username')
      .addSelect('m.role', 'role')
      .where('m.projectId = :projectId', { projectId })
      .orderBy('u.username')
      .addOrderBy('m.userId')
      .getRawMany<{ userId: string; username: string; role: string }>();
    return rows.filter((row): row is ProjectMemberView => isProjectRole(row.role));
  }

  /**
   * The project with the viewer's role, its row locked until the transaction ends (MySQL/MariaDB),
   * so changes to one project's members run one after the other; null when it does not exist.
   */
  async lockWithRole(tx: Tx, projectId: string, viewerId: string): Promise<ProjectWithRole | null> {
    const query = tx.getRepository(Project).createQueryBuilder('p').where('p.id = :projectId', { projectId });
    // SQLite has one writer and no FOR UPDATE.
    if (tx.connection.options.type === 'mysql') query.setLock('pessimistic_write');
    const project = await query.getOne();
    return project ? { project, role: await this.roleIn(tx, projectId, viewerId) } : null;
  }

  async roleIn(tx: Tx, projectId: string, userId: string): Promise<ProjectRole | null> {
    const member = await tx
      .getRepository(ProjectMember)
      .findOne({ select: { projectId: true, userId: true, role: true }, where: { projectId, userId } });
    return member && isProjectRole(member.role) ? member.role : null;
  }

  /** The username of the user with this id, or null when there is none. */
  async usernameOf(tx: Tx, userId: string): Promise<string | null> {
    const user = await tx.getRepository(User).findOne({ select: { id: true, username: true }, where: { id: userId } });
    return user?.username ?? null;
  }

  async insertProject(tx: Tx, project: Project): Promise<void> {
    await tx.getRepository(Project).insert(project);
  }

  async updateProject(tx: Tx, projectId: string, values: EditableProjectFields): Promise<void> {
    if (Object.keys(values).length === 0) return;
    await tx.getRepository(Project).update({ id: projectId }, values);
  }

  /** Adds a member, with the event that records it when given; MemberAlreadyAddedError if another writer was first. */
  async insertMember(tx: Tx, member: ProjectMember, event?: DomainEvent): Promise<void> {
    try {
      await tx.getRepository(ProjectMember).insert(member);
    } catch (error) {
      if (isUniqueViolation(error)) throw new MemberAlreadyAddedError('The member was added concurrently.');
      throw error;
    }
    if (event) await this.outbox.append(tx, event, member.createdAt);
  }

  /**
   * Sets a member's role, unless that would leave the project without a manager (the write itself
   * checks, so it holds even if two transactions interleave). Answers whether it wrote.
   */
  async setRoleKeepingAManager(tx: Tx, projectId: string, userId: string, role: ProjectRole): Promise<boolean> {
    const result = await tx
      .createQueryBuilder()
      .update(ProjectMember)
      .set({ role })
      .where('projectId = :projectId AND userId = :userId', { projectId, userId })
      .andWhere(`(:role = 'manager' OR role <> 'manager' OR ${OTHER_MANAGER_EXISTS})`, { role })
      .execute();
    return result.affected === 1;
  }

  /** Removes a member unless they are the project's last manager; answers whether it removed one. */
  async removeKeepingAManager(tx: Tx, projectId: string, userId: string): Promise<boolean> {
    const result = await tx
      .createQueryBuilder()
      .delete()
      .from(ProjectMember)
      .where('projectId = :projectId AND userId = :userId', { projectId, userId })
      .andWhere(`(role <> 'manager' OR ${OTHER_MANAGER_EXISTS})`)
      .execute();
    return result.affected === 1;
  }

  /** Projects with the viewer's role in each (a LEFT JOIN: null where they are not a member). */
  private withViewerRole(viewerId: string): SelectQueryBuilder<Project> {
    return this.projects
      .createQueryBuilder('p')
      .leftJoin(ProjectMember, 'm', 'm.projectId = p.id AND m.userId = :viewerId', { viewerId })
      .addSelect('m.role', 'viewerRole');
  }
}

/** By name then id, one page (LIMIT/OFFSET: the join matches at most one row per project). */
function page(query: SelectQueryBuilder<Project>, limit: number, offset: number): SelectQueryBuilder<Project> {
  return query.orderBy('p.name').addOrderBy('p.id').limit(limit).offset(offset);
}

async function withRoles(query: SelectQueryBuilder<Project>): Promise<ProjectWithRole[]> {
  const { entities, raw } = await query.getRawAndEntities<{ viewerRole: unknown }>();
  return entities.map((project, index) => {
    const role = raw[index]?.viewerRole;
    return { project, role: isProjectRole(role) ? role : null };
  });
}
