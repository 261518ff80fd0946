import { Readable } from 'node:stream';
import { hash } from '@node-rs/argon2';
import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm';
import { DEMO_IDS, demoNotificationId } from '../common/demo-ids.js';
import { identityKey } from '../common/text/identity-key.js';
import type { SeedConfig } from '../config/configuration.js';
import { DocumentType } from '../document-types/entities/document-type.entity.js';
import { DocumentVersion } from '../documents/entities/document-version.entity.js';
import { DocumentCounts } from '../documents/document-counts.repository.js';
import { Document } from '../documents/entities/document.entity.js';
import { FileStore } from '../storage/file-store.js';
import { detectMediaType } from '../storage/media-type.js';
import { ProjectMember } from '../projects/entities/project-member.entity.js';
import { Project } from '../projects/entities/project.entity.js';
import type { ProjectRole } from '../projects/project-role.js';
import {
  NOTIFICATION_STATUSES,
  NOTIFICATION_TYPES,
  Notification,
} from '../notifications/entities/notification.entity.js';
import { createValidationPipe } from '../common/http/validation.pipe.js';
import { CreateUserByRoleNamesDto } from '../users/dto/user-input.dto.js';
import { Role } from '../users/entities/role.entity.js';
import { User } from '../users/entities/user.entity.js';
import { ARGON2_OPTIONS } from '../users/password-hasher.service.js';
import { passwordWeakness } from '../users/password-policy.js';

export interface SeedSummary {
  users: { id: string; username: string; password: string; roles: string[] }[];
  projects: { id: string; name: string; members: { userId: string; role: ProjectRole }[] }[];
  documentTypes: { id: string; name: string }[];
  documents: { id: string; uploadedBy: string }[];
  notifications: Record<string, number>;
}

export class SeedRefusedError extends Error {
  override name = 'SeedRefusedError';
}

const DEMO_USERS = [
  { username: 'admin', firstName: 'Ada', lastName: 'Admin', roles: ['admin'] },
  { username: 'alice', firstName: 'Alice', lastName: 'Martin', roles: ['user'] },
  { username: 'bob', firstName: 'Bob', lastName: 'Keller', roles: ['user'] },
  { username: 'erin', firstName: 'Erin', lastName: 'Editor', roles: ['editor', 'user'] },
] as const;

const userValidation = createValidationPipe();

/** Notifications per (status, type) pair for alice: 4 x 4 x 4 = 64, more than three default pages. */
const PER_PAIR_FOR_MAIN_USER = 4;

/** A small, valid one-page PDF saying `text`, so a demo download opens in any viewer. */
export function demoPdf(text: string): Buffer {
  const safe = text.replace(/[\\()]/g, '');
  const stream = `BT /F1 18 Tf 72 720 Td (${safe}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** Stores `bytes` in the file store; answers its sha256, size and media type. */
async function storeDemoFile(store: FileStore, bytes: Buffer) {
  const pending = await store.begin();
  try {
    await pending.write(Readable.from([bytes]));
    const stored = await pending.commit();
    return { ...stored, mimeType: await detectMediaType(pending.head) };
  } finally {
    await pending.abort();
  }
}

/**
 * Fills an empty database with demo data (users, roles, projects, types, documents with their
 * files in `store`, and notifications). Refuses when any user exists, so it
 * can never touch real data.
 */
export async function seedDemoData(
  dataSource: DataSource,
  password: string | undefined,
  store: FileStore,
): Promise<SeedSummary> {
  if (!password) {
    throw new SeedRefusedError('SEED_PASSWORD must be set to seed a production database.');
  }
  // The rules of every other way to create a user (API, CLI) hold for the demo users too.
  for (const demo of DEMO_USERS) {
    const { username, firstName, lastName, roles } = demo;
    const fields = { username, firstName, lastName, email: `${username}@example.com`, password, roleNames: roles };
    await userValidation.transform(fields, { type: 'body', metatype: CreateUserByRoleNamesDto });
    const weakness = await passwordWeakness(password, { ...demo, email: `${demo.username}@example.com` });
    if (weakness) throw new SeedRefusedError(`SEED_PASSWORD is refused for ${demo.username}: ${weakness}`);
  }
  if ((await dataSource.getRepository(User).count()) > 0) {
    throw new SeedRefusedError('The database already has users; the seed only fills an empty database.');
  }

  const now = Date.now();
  const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000);

  // The default roles come from a migration; the seed only assigns them.
  const roles = await dataSource.getRepository(Role).find();
  const missing = ['admin', 'editor', 'user'].filter((name) => !roles.some((role) => role.name === name));
  if (missing.length) throw new SeedRefusedError(`The database lacks the default roles ${missing.join(', ')}.`);
  const users: User[] = [];
  for (const [index, demo] of DEMO_USERS.entries()) {
    users.push(
      Object.assign(new User(), {
        id: DEMO_IDS.users[demo.username],
        username: demo.username,
        usernameKey: identityKey(demo.username),
        email: `${demo.username}@example.com`,
        emailKey: identityKey(`${demo.username}@example.com`),
        firstName: demo.firstName,
        lastName: demo.lastName,
        passwordHash: await hash(password, ARGON2_OPTIONS),
        isActive: true,
        tokenVersion: 0,
        createdAt: at(10_000 - index),
        roles: roles.filter((role) => (demo.roles as readonly string[]).includes(role.name)),
      }),
    );
  }
  const [admin, alice, bob] = users;

  const projects = (['Apollo', 'Hermes'] as const).map((name, index) =>
    Object.assign(new Project(), {
      id: DEMO_IDS.projects[name === 'Apollo' ? 'apollo' : 'hermes'],
      name,
      createdAt: at(9_000 - index),
    }),
  );
  const types = (['Contract', 'Specification'] as const).map((name, index) =>
    Object.assign(new DocumentType(), {
      id: DEMO_IDS.documentTypes[name === 'Contract' ? 'contract' : 'specification'],
      name,
      nameKey: identityKey(name),
      createdAt: at(9_000 - index),
    }),
  );
  // Every seeded user but the administrator is a contributor of every project (so a plain user may
  // read another's document but not change it); the administrator manages each one.
  const members = projects.flatMap((project, index) =>
    users.map((user) =>
      Object.assign(new ProjectMember(), {
        projectId: project.id,
        userId: user.id,
        role: user === admin ? 'manager' : 'contributor',
        createdAt: at(8_900 - index),
      }),
    ),
  );

  const owners = [alice, alice, alice, bob, bob, bob, admin, admin];
  const files: { sha256: string; size: number; mimeType: string }[] = [];
  for (const [index, owner] of owners.entries()) {
    files.push(await storeDemoFile(store, demoPdf(`Demo document ${index + 1}, uploaded by ${owner.username}`)));
  }
  const documents = owners.map((owner, index) =>
    Object.assign(new Document(), {
      id: DEMO_IDS.documents[index],
      projectId: projects[index % 2].id,
      documentTypeId: types[index % 2].id,
      title: `${types[index % 2].name} ${index + 1} for ${projects[index % 2].name}`,
      description: `Demo document ${index + 1}, uploaded by ${owner.username}.`,
      fileName: `document-${index + 1}.pdf`,
      fileSize: files[index].size,
      mimeType: files[index].mimeType,
      sha256: files[index].sha256,
      currentVersion: 1,
      status: 'draft',
      tags: index % 2 ? ['spec'] : ['contract', 'legal'],
      metadata: { department: index % 2 ? 'engineering' : 'legal' },
      uploadedBy: owner.id,
      rowVersion: 1,
      createdAt: at(5_000 - index),
      updatedAt: at(5_000 - index),
      deletedAt: null,
      deletedBy: null,
    }),
  );

  const versions = documents.map((document) =>
    Object.assign(new DocumentVersion(), {
      documentId: document.id,
      version: 1,
      fileName: document.fileName,
      fileSize: document.fileSize,
      mimeType: document.mimeType,
      sha256: document.sha256,
      comment: '',
      uploadedBy: document.uploadedBy,
      createdAt: document.createdAt,
    }),
  );

  const notifications: Notification[] = [];
  const addNotifications = (user: User, perPair: number) => {
    let index = 0;
    for (const status of NOTIFICATION_STATUSES) {
      for (const notificationType of NOTIFICATION_TYPES) {
        for (let n = 0; n < perPair; n++, index++) {
          // Two notifications share each timestamp, so ordering must fall back on id.
          const createdAt = at(Math.floor(index / 2) * 7 + 1);
          notifications.push(
            Object.assign(new Notification(), {
              id: demoNotificationId(notifications.length + 1),
              userId: user.id,
              subject: `${status} ${notificationType} notification ${index + 1}`,
              message: `Demo ${notificationType} notification for ${user.username} (${status}).`,
              notificationType,
              status,
              readAt: status === 'read' ? new Date(createdAt.getTime() + 30_000) : null,
              createdAt,
            }),
          );
        }
      }
    }
  };
  addNotifications(alice, PER_PAIR_FOR_MAIN_USER);
  // A few for the others: one per status, types rotating.
  for (const user of [bob, admin]) {
    NOTIFICATION_STATUSES.forEach((status, index) => {
      const createdAt = at(index * 13 + 3);
      notifications.push(
        Object.assign(new Notification(), {
          id: demoNotificationId(notifications.length + 1),
          userId: user.id,
          subject: `Hello ${user.username} (${status})`,
          message: `Demo notification for ${user.username}.`,
          notificationType: NOTIFICATION_TYPES[index % NOTIFICATION_TYPES.length],
          status,
          readAt: status === 'read' ? new Date(createdAt.getTime() + 60_000) : null,
          createdAt,
        }),
      );
    });
  }

  // Snapshot the summary first: TypeORM's multi-row insert writes generated values back into the
  // entity objects and on SQLite was seen to shuffle the ids between them (the rows stay right).
  const counts: Record<string, number> = {};
  for (const user of users) counts[user.id] = notifications.filter((n) => n.userId === user.id).length;
  const summary: SeedSummary = {
    users: users.map((user) => ({
      id: user.id,
      username: user.username,
      password,
      roles: user.roles.map((role) => role.name),
    })),
    projects: projects.map((project) => ({
      id: project.id,
      name: project.name,
      members: members
        .filter((member) => member.projectId === project.id)
        .map((member) => ({ userId: member.userId, role: member.role })),
    })),
    documentTypes: types.map((type) => ({ id: type.id, name: type.name })),
    documents: documents.map((document) => ({ id: document.id, uploadedBy: document.uploadedBy })),
    notifications: counts,
  };

  await dataSource.transaction(async (manager) => {
    await manager.save(User, users);
    await manager.insert(Project, projects);
    await manager.insert(ProjectMember, members);
    await manager.insert(DocumentType, types);
    await manager.insert(Document, documents as QueryDeepPartialEntity<Document>[]);
    await new DocumentCounts().move(
      manager,
      documents.map((document) => ({ before: null, after: document })),
    );
    await manager.insert(DocumentVersion, versions);
    for (let start = 0; start < notifications.length; start += 200) {
      await manager.insert(Notification, notifications.slice(start, start + 200));
    }
  });
  return summary;
}

/** Used by `SEED_DEMO=true` at start-up: seeds only a database without users. */
export async function seedDemoDataIfEmpty(
  dataSource: DataSource,
  config: Pick<SeedConfig, 'password'>,
  store: FileStore,
): Promise<SeedSummary | undefined> {
  if ((await dataSource.getRepository(User).count()) > 0) return undefined;
  return seedDemoData(dataSource, config.password, store);
}

export interface DemoLogin {
  username: string;
  roles: string[];
  /** A document this user may update: their own first one, else (admin, editor) the first of all. */
  documentId: string;
}

/** What a person needs to try the API with the demo data: who can log in and a document to update. */
export function demoLogins(summary: SeedSummary): DemoLogin[] {
  return summary.users.map((user) => ({
    username: user.username,
    roles: user.roles,
    documentId: (summary.documents.find((document) => document.uploadedBy === user.id) ?? summary.documents[0]).id,
  }));
}

/** The demo password as it may be shown: the development default is printed, a configured one never is. */
export function demoPasswordNote(config: Pick<SeedConfig, 'password' | 'developmentDefault'>): string {
  return config.developmentDefault ? `the password ${config.password}` : 'the password set in SEED_PASSWORD';
}
