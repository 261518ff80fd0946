import { randomUUID } from 'node:crypto';
import { Document } from '../../src/documents/entities/document.entity.js';
import { identityKey } from '../../src/common/text/identity-key.js';
import { ProjectMember } from '../../src/projects/entities/project-member.entity.js';
import { Project } from '../../src/projects/entities/project.entity.js';
import type { ProjectRole } from '../../src/projects/project-role.js';
import { Role } from '../../src/users/entities/role.entity.js';
import { User } from '../../src/users/entities/user.entity.js';
import type { TestApp } from './test-app.js';

/**
 * Extra people, projects and documents for the document list and workflow suites, written straight
 * to the database (the seeded users all share one project role per project, too few for permission
 * tables). Passwords are the seeded users' (TEST_PASSWORD), so `t.login(name)` works.
 */
export async function addUser(
  t: TestApp,
  username: string,
  projects: Record<string, ProjectRole> = {},
  roleNames: string[] = ['user'],
): Promise<string> {
  const [alice] = await t.dataSource.query<{ passwordHash: string }[]>(
    "SELECT passwordHash FROM users WHERE username = 'alice'",
  );
  const roles = (await t.dataSource.getRepository(Role).find()).filter((role) => roleNames.includes(role.name));
  const id = randomUUID();
  await t.dataSource.getRepository(User).save(
    Object.assign(new User(), {
      id,
      username,
      usernameKey: identityKey(username),
      email: `${username}@example.com`,
      emailKey: identityKey(`${username}@example.com`),
      firstName: username,
      lastName: 'Test',
      passwordHash: alice.passwordHash,
      isActive: true,
      tokenVersion: 0,
      createdAt: new Date(),
      roles,
    }),
  );
  for (const [projectId, role] of Object.entries(projects)) await setMember(t, projectId, id, role);
  return id;
}

export async function setMember(t: TestApp, projectId: string, userId: string, role: ProjectRole): Promise<void> {
  await t.dataSource
    .getRepository(ProjectMember)
    .save(Object.assign(new ProjectMember(), { projectId, userId, role, createdAt: new Date() }));
}

export async function addProject(t: TestApp, name: string): Promise<string> {
  const id = randomUUID();
  await t.dataSource.getRepository(Project).insert({ id, name, description: '', createdAt: new Date() });
  return id;
}

export interface DocumentFixture {
  projectId: string;
  uploadedBy: string;
  title?: string;
  description?: string;
  fileName?: string;
  tags?: string[];
  status?: Document['status'];
  documentTypeId?: string;
  createdAt?: Date;
  updatedAt?: Date;
  deletedAt?: Date | null;
  deletedBy?: string | null;
}

export async function addDocument(t: TestApp, fixture: DocumentFixture): Promise<string> {
  const id = randomUUID();
  const at = fixture.updatedAt ?? new Date();
  await t.dataSource.getRepository(Document).insert({
    id,
    projectId: fixture.projectId,
    documentTypeId: fixture.documentTypeId ?? t.seed.documentTypes[0].id,
    title: fixture.title ?? 'untitled',
    description: fixture.description ?? '',
    fileName: fixture.fileName ?? 'file.pdf',
    fileSize: 100,
    mimeType: 'application/pdf',
    currentVersion: 1,
    status: fixture.status ?? 'draft',
    tags: fixture.tags ?? [],
    metadata: {},
    uploadedBy: fixture.uploadedBy,
    rowVersion: 1,
    createdAt: fixture.createdAt ?? at,
    updatedAt: at,
    sha256: null,
    deletedAt: fixture.deletedAt ?? null,
    deletedBy: fixture.deletedBy ?? null,
  });
  return id;
}
