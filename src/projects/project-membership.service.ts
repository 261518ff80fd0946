import { Injectable } from '@nestjs/common';
import type { ProjectRole } from './project-role.js';
import { ProjectsRepository } from './projects.repository.js';

/** What other features ask about projects: a user's role in one (null: not a member), its members. */
@Injectable()
export class ProjectMembership {
  constructor(private readonly projects: ProjectsRepository) {}

  roleOf(userId: string, projectId: string): Promise<ProjectRole | null> {
    return this.projects.roleOf(userId, projectId);
  }

  memberIds(projectId: string): Promise<string[]> {
    return this.projects.memberIds(projectId);
  }
}
