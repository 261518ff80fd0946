import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EntityRows, isUniqueViolation, SqlRunner, type SqlTransaction } from '../database/sql-runner.js';
import type { DomainEvent } from '../events/domain-event.js';
import { OutboxRepository } from '../events/outbox.repository.js';
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

/** Another writer inserted the same member first (SQLite: concurrent transactions share one connection). */
export class MemberAlreadyAddedError extends Error {
  override name = 'MemberAlreadyAddedError';
}

type Row = Record<string, unknown>;

const PROJECT_COLUMNS = 'p.id, p.name, p.description, p.createdAt';

// The rest of the project's managers, read through a derived table: MySQL refuses an UPDATE or
// DELETE whose subquery reads the table it changes directly (error 1093); SQLite takes either form.
const OTHER_MANAGER_EXISTS =
  `EXISTS (SELECT 1 FROM (SELECT userId FROM project_members WHERE projectId = ? AND role = 'manager') managers ` +
  'WHERE managers.userId <> ?)';

/**
 * Every statement and row mapping of projects and their members. Writes take the transaction of
 * the change (`transaction`), so whatever else the change records (outbox event, audit entry)
 * commits or rolls back with it.
 */
@Injectable()
export class ProjectsRepository {
  private readonly projectRows: EntityRows<Project>;
  private readonly memberRows: EntityRows<ProjectMember>;
  private readonly lockSuffix: string;

  constructor(
    dataSource: DataSource,
    private readonly sql: SqlRunner,
    private readonly outbox: OutboxRepository,
  ) {
    this.projectRows = new EntityRows(dataSource, Project);
    this.memberRows = new EntityRows(dataSource, ProjectMember);
    // SQLite has one writer and no FOR UPDATE; MySQL/MariaDB locks the project row.
    this.lockSuffix = dataSource.options.type === 'mysql' ? ' FOR UPDATE' : '';
  }

  /** The user's role in the project, or null when they are not a member (or the project does not exist). */
  async roleOf(userId: string, projectId: string): Promise<ProjectRole | null> {
    const [row] = await this.sql.select<{ role: string }>(
      'SELECT role FROM project_members WHERE projectId = ? AND userId = ?',
      [projectId, userId],
    );
    return row && isProjectRole(row.role) ? row.role : null;
  }

  /** Every member's user id (notification recipients). */
  async memberIds(projectId: string): Promise<string[]> {
    const rows = await this.sql.select<{ userId: string }>('SELECT userId FROM project_members WHERE projectId = ?', [
      projectId,
    ]);
    return rows.map((row) => row.userId);
  }

  /** The project with the viewer's role in it, or null when no project has this id. */
  async findWithRole(projectId: string, viewerId: string): Promise<ProjectWithRole | null> {
    const [row] = await this.sql.select<Row>(
      `SELECT ${PROJECT_COLUMNS}, m.role FROM projects p
       LEFT JOIN project_members m ON m.projectId = p.id AND m.userId = ? WHERE p.id = ?`,
      [viewerId, projectId],
    );
    return row ? this.withRole(row) : null;
  }

  /** The projects the user is a member of, by name then id (through IDX_project_members_user). */
  async pageOfMember(userId: string, limit: number, offset: number): Promise<ProjectWithRole[]> {
    const rows = await this.sql.select<Row>(
      `SELECT ${PROJECT_COLUMNS}, m.role FROM project_members m JOIN projects p ON p.id = m.projectId
       WHERE m.userId = ? ORDER BY p.name, p.id LIMIT ? OFFSET ?`,
      [userId, limit, offset],
    );
    return rows.map((row) => this.withRole(row));
  }

  async countOfMember(userId: string): Promise<number> {
    return count(
      await this.sql.select<Row>('SELECT COUNT(*) AS total FROM project_members WHERE userId = ?', [userId]),
    );
  }

  /** Every project, by name then id, with the viewer's role in each. */
  async pageOfAll(viewerId: string, limit: number, offset: number): Promise<ProjectWithRole[]> {
    const rows = await this.sql.select<Row>(
      `SELECT ${PROJECT_COLUMNS}, m.role FROM projects p
       LEFT JOIN project_members m ON m.projectId = p.id AND m.userId = ?
       ORDER BY p.name, p.id LIMIT ? OFFSET ?`,
      [viewerId, limit, offset],
    );
    return rows.map((row) => this.withRole(row));
  }

  async countAll(): Promise<number> {
    return count(await this.sql.select<Row>('SELECT COUNT(*) AS total FROM projects', []));
  }

  /** Every member with their username, by username then user id. */
  async members(projectId: string): Promise<ProjectMemberView[]> {
    const rows = await this.sql.select<{ userId: string; username: string; role: string }>(
      `SELECT m.userId, u.username, m.role FROM project_members m JOIN users u ON u.id = m.userId
       WHERE m.projectId = ? ORDER BY u.username, m.userId`,
      [projectId],
    );
    return rows.filter((row) => isProjectRole(row.role)) as ProjectMemberView[];
  }

  /** Runs `work` in one transaction: it commits when `work` resolves and rolls back when it throws. */
  transaction<T>(work: (tx: SqlTransaction) => Promise<T>): Promise<T> {
    return this.sql.transaction(work);
  }

  /**
   * The project with the viewer's role, its row locked until the transaction ends (MySQL/MariaDB),
   * so changes to one project's members run one after the other; null when it does not exist.
   */
  async lockWithRole(tx: SqlTransaction, projectId: string, viewerId: string): Promise<ProjectWithRole | null> {
    const [row] = await tx.select<Row>(`SELECT ${PROJECT_COLUMNS} FROM projects p WHERE p.id = ?${this.lockSuffix}`, [
      projectId,
    ]);
    if (!row) return null;
    return { project: this.projectRows.fromRow(row), role: await this.roleIn(tx, projectId, viewerId) };
  }

  async roleIn(tx: SqlTransaction, projectId: string, userId: string): Promise<ProjectRole | null> {
    const [row] = await tx.select<{ role: string }>(
      'SELECT role FROM project_members WHERE projectId = ? AND userId = ?',
      [projectId, userId],
    );
    return row && isProjectRole(row.role) ? row.role : null;
  }

  /** The username of the user with this id, or null when there is none. */
  async usernameOf(tx: SqlTransaction, userId: string): Promise<string | null> {
    const [row] = await tx.select<{ username: string }>('SELECT username FROM users WHERE id = ?', [userId]);
    return row ? row.username : null;
  }

  async insertProject(tx: SqlTransaction, project: Project): Promise<void> {
    const columns = ['id', 'name', 'description', 'createdAt'] as const;
    await tx.execute(
      `INSERT INTO projects (${columns.join(', ')}) VALUES (?, ?, ?, ?)`,
      columns.map((column) => this.projectRows.toColumn(column, project[column])),
    );
  }

  async updateProject(tx: SqlTransaction, projectId: string, values: EditableProjectFields): Promise<void> {
    const fields = Object.keys(values) as (keyof EditableProjectFields)[];
    if (fields.length === 0) return;
    await tx.execute(`UPDATE projects SET ${fields.map((field) => `${field} = ?`).join(', ')} WHERE id = ?`, [
      ...fields.map((field) => this.projectRows.toColumn(field, values[field])),
      projectId,
    ]);
  }

  /** Adds a member, with the event that records it when given; MemberAlreadyAddedError if another writer was first. */
  async insertMember(tx: SqlTransaction, member: ProjectMember, event?: DomainEvent): Promise<void> {
    const columns = ['projectId', 'userId', 'role', 'createdAt'] as const;
    try {
      await tx.execute(
        `INSERT INTO project_members (${columns.join(', ')}) VALUES (?, ?, ?, ?)`,
        columns.map((column) => this.memberRows.toColumn(column, member[column])),
      );
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
  async setRoleKeepingAManager(
    tx: SqlTransaction,
    projectId: string,
    userId: string,
    role: ProjectRole,
  ): Promise<boolean> {
    const changed = await tx.execute(
      `UPDATE project_members SET role = ? WHERE projectId = ? AND userId = ?
       AND (? = 'manager' OR role <> 'manager' OR ${OTHER_MANAGER_EXISTS})`,
      [role, projectId, userId, role, projectId, userId],
    );
    return changed === 1;
  }

  /** Removes a member unless they are the project's last manager; answers whether it removed one. */
  async removeKeepingAManager(tx: SqlTransaction, projectId: string, userId: string): Promise<boolean> {
    const removed = await tx.execute(
      `DELETE FROM project_members WHERE projectId = ? AND userId = ?
       AND (role <> 'manager' OR ${OTHER_MANAGER_EXISTS})`,
      [projectId, userId, projectId, userId],
    );
    return removed === 1;
  }

  private withRole(row: Row): ProjectWithRole {
    return { project: this.projectRows.fromRow(row), role: isProjectRole(row.role) ? row.role : null };
  }
}

/** COUNT(*) arrives as a number (SQLite), a bigint string (MySQL) or a bigint. */
function count(rows: Row[]): number {
  return Number(rows[0]?.total ?? 0);
}
