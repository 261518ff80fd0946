import { Injectable } from '@nestjs/common';
import { SqlRunner } from '../database/sql-runner.js';
import { isProjectRole, type ProjectRole } from './project-role.js';

/** Every statement and row mapping of projects and their members. */
@Injectable()
export class ProjectsRepository {
  constructor(private readonly sql: SqlRunner) {}

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
}
