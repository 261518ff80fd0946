import { randomBytes, randomUUID } from 'node:crypto';
import { identityKey } from '../../src/common/text/identity-key.js';
import { ProjectMember } from '../../src/projects/entities/project-member.entity.js';
import { Project } from '../../src/projects/entities/project.entity.js';
import type { ProjectRole } from '../../src/projects/project-role.js';
import { Role } from '../../src/users/entities/role.entity.js';
import { User } from '../../src/users/entities/user.entity.js';
import type { TestApp } from './test-app.js';

/** One part of a hand-built multipart body: a text field, or a file (with a file name and a type). */
export type Part =
  { name: string; value: string } | { name: string; fileName: string | null; bytes: Buffer | string; type?: string };

/** A multipart/form-data body exactly as given (order, names, file names), for cases FormData cannot express. */
export function multipartBody(parts: Part[], boundary = `----dms${randomBytes(8).toString('hex')}`) {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if ('value' in part) {
      chunks.push(Buffer.from(`${head}\r\n\r\n`), Buffer.from(part.value, 'utf8'), Buffer.from('\r\n'));
      continue;
    }
    if (part.fileName !== null) head += `; filename="${part.fileName}"`;
    head += `\r\nContent-Type: ${part.type ?? 'application/octet-stream'}\r\n\r\n`;
    chunks.push(Buffer.from(head, 'utf8'), Buffer.from(part.bytes), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Sends a multipart request; answers the status, headers and parsed JSON body. */
export async function sendMultipart(
  url: string,
  token: string | undefined,
  parts: Part[],
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Record<string, any> }> {
  const { body, contentType } = multipartBody(parts);
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': contentType, ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : {} };
}

/** The files in the store (by sha256) and its temporary files (either driver). */
export async function storeContents(t: TestApp): Promise<{ files: string[]; temporary: string[] }> {
  return { files: await t.stored.files(), temporary: await t.stored.temporary() };
}

/**
 * Adds a user with the seeded password and role `user` (no permissions), for permission tables
 * that need more people than the seed has. Answers their id.
 */
export async function addPlainUser(t: TestApp, username: string): Promise<string> {
  const [{ passwordHash }] = await t.dataSource.query<{ passwordHash: string }[]>(
    'SELECT passwordHash FROM users WHERE id = ?',
    [t.user('alice').id],
  );
  const role = await t.dataSource.getRepository(Role).findOneByOrFail({ name: 'user' });
  const user = Object.assign(new User(), {
    id: randomUUID(),
    username,
    usernameKey: identityKey(username),
    email: `${username}@example.com`,
    emailKey: identityKey(`${username}@example.com`),
    firstName: username,
    lastName: 'Test',
    passwordHash,
    isActive: true,
    tokenVersion: 0,
    createdAt: new Date(),
    roles: [role],
  });
  await t.dataSource.getRepository(User).save(user);
  return user.id;
}

/** A project with the given members (userId → role), inserted directly. Answers its id. */
export async function addProject(t: TestApp, name: string, members: Record<string, string>): Promise<string> {
  const id = randomUUID();
  const createdAt = new Date();
  await t.dataSource.getRepository(Project).insert({ id, name, description: '', createdAt });
  for (const [userId, role] of Object.entries(members)) {
    await t.dataSource
      .getRepository(ProjectMember)
      .insert({ projectId: id, userId, role: role as ProjectRole, createdAt });
  }
  return id;
}
