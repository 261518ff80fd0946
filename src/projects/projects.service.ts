import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { AuditContext } from '../audit/audit-context.js';
import { AuditTrail, changedFields } from '../audit/audit-trail.js';
import { hasPermission, type AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { ApiError } from '../common/errors/error-codes.js';
import { Transactions, type Tx } from '../database/transactions.js';
import type { CreateProjectDto, UpdateProjectDto } from './dto/project-input.dto.js';
import { ProjectMember } from './entities/project-member.entity.js';
import { Project } from './entities/project.entity.js';
import type { ProjectRole } from './project-role.js';
import {
  MemberAlreadyAddedError,
  ProjectsRepository,
  type EditableProjectFields,
  type ProjectMemberView,
  type ProjectWithRole,
} from './projects.repository.js';

// A project's audited fields; membership changes are recorded as the field members.<userId>,
// whose value is that user's role in the project (null: not a member).
const AUDITED_FIELDS = ['name', 'description'];

export interface ProjectPage {
  projects: ProjectWithRole[];
  total: number;
}

/**
 * The rules of projects and membership:
 * - see a project (GET, its members): a member, or projects:manage; anyone else is told it does not
 *   exist (404 project_not_found), never 403;
 * - manage it (PATCH, PUT/DELETE members): a manager of it, or projects:manage; another member gets 403;
 *   a member may also remove themselves (leave);
 * - a project keeps at least one manager (409 last_manager).
 * Each change is one method running one transaction, and its audit event (and outbox event) is
 * written in that transaction: a refused or failed change records nothing.
 */
@Injectable()
export class ProjectsService {
  constructor(
    private readonly projects: ProjectsRepository,
    private readonly transactions: Transactions,
    private readonly audit: AuditTrail,
  ) {}

  /** The caller's projects; every project for projects:manage. By name, then id. */
  async list(user: AuthenticatedUser, page: number, limit: number): Promise<ProjectPage> {
    const all = mayManageAll(user);
    const total = all ? await this.projects.countAll() : await this.projects.countOfMember(user.id);
    const offset = (page - 1) * limit;
    if (offset >= total) return { projects: [], total };
    const projects = all
      ? await this.projects.pageOfAll(user.id, limit, offset)
      : await this.projects.pageOfMember(user.id, limit, offset);
    return { projects, total };
  }

  async get(projectId: string, user: AuthenticatedUser): Promise<ProjectWithRole> {
    return visible(projectId, await this.projects.findWithRole(projectId, user.id), user);
  }

  /** Creates the project with the caller as its manager (route access: projects:manage). */
  async create(input: CreateProjectDto, user: AuthenticatedUser, context: AuditContext): Promise<ProjectWithRole> {
    const createdAt = new Date();
    const project = Object.assign(new Project(), {
      id: randomUUID(),
      name: input.name,
      description: input.description ?? '',
      createdAt,
    });
    const creator = Object.assign(new ProjectMember(), {
      projectId: project.id,
      userId: user.id,
      role: 'manager',
      createdAt,
    });
    await this.transactions.run(async (tx) => {
      await this.projects.insertProject(tx, project);
      // No project.member_added event: the creator is the actor, and nobody is told of their own act.
      await this.projects.insertMember(tx, creator);
      // One event: the creator's membership is part of the creation, not a separate act.
      await this.audit.record(tx, context, {
        action: 'project.created',
        targetType: 'project',
        targetId: project.id,
        changes: changedFields({}, project, AUDITED_FIELDS),
      });
    });
    return { project, role: 'manager' };
  }

  /** Changes name and/or description; fields left out keep their value, {} changes nothing. */
  async update(
    projectId: string,
    input: UpdateProjectDto,
    user: AuthenticatedUser,
    context: AuditContext,
  ): Promise<ProjectWithRole> {
    return this.transactions.run(async (tx) => {
      const found = await this.manageable(tx, projectId, user);
      const values: EditableProjectFields = {};
      if (input.name !== undefined && input.name !== found.project.name) values.name = input.name;
      if (input.description !== undefined && input.description !== found.project.description) {
        values.description = input.description;
      }
      const project = Object.assign(new Project(), found.project, values);
      const changes = changedFields(found.project, project, AUDITED_FIELDS);
      // {} or the same values again change nothing and record nothing.
      if (Object.keys(changes).length === 0) return found;
      await this.projects.updateProject(tx, projectId, values);
      await this.audit.record(tx, context, {
        action: 'project.updated',
        targetType: 'project',
        targetId: projectId,
        changes,
      });
      return { project, role: found.role };
    });
  }

  async members(projectId: string, user: AuthenticatedUser): Promise<ProjectMemberView[]> {
    visible(projectId, await this.projects.findWithRole(projectId, user.id), user);
    return this.projects.members(projectId);
  }

  /**
   * Adds the user with `role`, or changes their role. Adding records project.member_added in the
   * same transaction; changing a role does not. Demoting the last manager is 409 last_manager.
   */
  async putMember(
    projectId: string,
    userId: string,
    role: ProjectRole,
    user: AuthenticatedUser,
    context: AuditContext,
  ): Promise<ProjectMemberView> {
    try {
      return await this.transactions.run(async (tx) => {
        const { project } = await this.manageable(tx, projectId, user);
        const username = await this.projects.usernameOf(tx, userId);
        if (username === null) throw new ApiError('user_not_found', `No user has the id ${userId}.`);
        const current = await this.projects.roleIn(tx, projectId, userId);
        const member: ProjectMemberView = { userId, username, role };
        if (current === role) return member;
        if (current === null) {
          const added = Object.assign(new ProjectMember(), { projectId, userId, role, createdAt: new Date() });
          await this.projects.insertMember(tx, added, {
            type: 'project.member_added',
            actorId: user.id,
            projectId,
            documentId: null,
            subjectUserId: userId,
            payload: { projectName: project.name, role, actorName: user.username },
          });
          await this.recordMembership(tx, context, 'project.member_added', projectId, userId, null, role);
          return member;
        }
        if (!(await this.projects.setRoleKeepingAManager(tx, projectId, userId, role))) {
          throw lastManager(project, 'demoted');
        }
        await this.recordMembership(tx, context, 'project.member_role_changed', projectId, userId, current, role);
        return member;
      });
    } catch (error) {
      if (error instanceof MemberAlreadyAddedError) {
        throw new ApiError('conflict', 'The membership changed while this request ran; read it again and retry.');
      }
      throw error;
    }
  }

  /** Removes the member (a manager, projects:manage, or the member themselves); never the last manager. */
  async removeMember(projectId: string, userId: string, user: AuthenticatedUser, context: AuditContext): Promise<void> {
    await this.transactions.run(async (tx) => {
      const { project } =
        userId === user.id ? await this.visibleLocked(tx, projectId, user) : await this.manageable(tx, projectId, user);
      const current = await this.projects.roleIn(tx, projectId, userId);
      if (current === null) {
        throw new ApiError('member_not_found', `The user ${userId} is not a member of the project ${projectId}.`);
      }
      if (!(await this.projects.removeKeepingAManager(tx, projectId, userId))) {
        throw lastManager(project, 'removed');
      }
      await this.recordMembership(tx, context, 'project.member_removed', projectId, userId, current, null);
    });
  }

  /** A membership change, recorded on the project as the field members.<userId> (its role; null: none). */
  private recordMembership(
    tx: Tx,
    context: AuditContext,
    action: 'project.member_added' | 'project.member_role_changed' | 'project.member_removed',
    projectId: string,
    userId: string,
    from: ProjectRole | null,
    to: ProjectRole | null,
  ): Promise<void> {
    return this.audit.record(tx, context, {
      action,
      targetType: 'project',
      targetId: projectId,
      changes: { [`members.${userId}`]: { from, to } },
    });
  }

  /** The project, locked for the transaction, if this user may see it (else 404). */
  private async visibleLocked(tx: Tx, projectId: string, user: AuthenticatedUser): Promise<ProjectWithRole> {
    return visible(projectId, await this.projects.lockWithRole(tx, projectId, user.id), user);
  }

  /** The project, locked for the transaction, if this user may manage it (404 when they may not even see it). */
  private async manageable(tx: Tx, projectId: string, user: AuthenticatedUser): Promise<ProjectWithRole> {
    const found = await this.visibleLocked(tx, projectId, user);
    if (found.role !== 'manager' && !mayManageAll(user)) {
      throw new ApiError(
        'forbidden',
        'Only a manager of this project or a user whose role grants projects:manage may change it or its members.',
      );
    }
    return found;
  }
}

function mayManageAll(user: AuthenticatedUser): boolean {
  return hasPermission(user, 'projects', 'manage');
}

/** The project if this user may see it; else 404, so existence is not revealed. */
function visible(projectId: string, found: ProjectWithRole | null, user: AuthenticatedUser): ProjectWithRole {
  if (!found || (found.role === null && !mayManageAll(user))) {
    throw new ApiError('project_not_found', `No project has the id ${projectId}.`);
  }
  return found;
}

function lastManager(project: Project, what: 'demoted' | 'removed'): ApiError {
  return new ApiError(
    'last_manager',
    `This is the last manager of the project "${project.name}" and cannot be ${what}; make another member a manager first.`,
  );
}
