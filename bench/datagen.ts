import { identityKey } from '../src/common/text/identity-key.js';
import type { BenchConfig } from './config.js';
import { rng } from './util.js';

/** Values of one row, in the column order of the matching *_COLUMNS list. */
export type Row = (string | number | null)[];

export const ROLE_COLUMNS = ['id', 'name', 'permissions'];
export const USER_COLUMNS = [
  'id',
  'username',
  'usernameKey',
  'email',
  'emailKey',
  'firstName',
  'lastName',
  'passwordHash',
  'isActive',
  'tokenVersion',
  'createdAt',
];
export const USER_ROLE_COLUMNS = ['userId', 'roleId'];
export const PROJECT_COLUMNS = ['id', 'name', 'createdAt'];
export const DOCUMENT_TYPE_COLUMNS = ['id', 'name', 'nameKey', 'createdAt'];
export const PROJECT_MEMBER_COLUMNS = ['projectId', 'userId', 'role', 'createdAt'];
export const DOCUMENT_COLUMNS = [
  'id',
  'projectId',
  'documentTypeId',
  'title',
  'description',
  'fileName',
  'fileSize',
  'mimeType',
  'currentVersion',
  'status',
  'tags',
  'metadata',
  'uploadedBy',
  'rowVersion',
  'createdAt',
  'updatedAt',
];
export const PARTICIPANT_COLUMNS = ['documentId', 'userId'];
export const NOTIFICATION_COLUMNS = [
  'id',
  'userId',
  'subject',
  'message',
  'notificationType',
  'status',
  'readAt',
  'createdAt',
];

const hex12 = (value: number) => value.toString(16).padStart(12, '0');
/** Deterministic, valid (version 4 / variant 8) UUIDs: the first group names the table. */
export const userId = (k: number) => `b0000001-0000-4000-8000-${hex12(k)}`;
export const documentId = (j: number) => `b0000002-0000-4000-8000-${hex12(j)}`;
export const notificationId = (seq: number) => `b0000003-0000-4000-8000-${hex12(seq)}`;
const projectId = (p: number) => `b0000004-0000-4000-8000-${hex12(p)}`;
const documentTypeId = (t: number) => `b0000005-0000-4000-8000-${hex12(t)}`;
export const ROLE_IDS = {
  admin: 'b0000006-0000-4000-8000-000000000001',
  editor: 'b0000006-0000-4000-8000-000000000002',
  user: 'b0000006-0000-4000-8000-000000000003',
} as const;
export const username = (k: number) => `bench_user_${k}`;

const PROJECTS = 20;
const DOCUMENT_TYPES = ['Contract', 'Specification', 'Invoice', 'Report', 'Policy', 'Drawing', 'Minutes', 'Offer'];
const DOCUMENT_STATUSES = ['draft', 'draft', 'draft', 'in_review', 'published', 'archived'];
const DAY = 86_400_000;

/** Archived documents refuse metadata changes (409): the update scenario skips them. */
export function documentUpdatable(j: number): boolean {
  return DOCUMENT_STATUSES[j % DOCUMENT_STATUSES.length] !== 'archived';
}

/** 'YYYY-MM-DD HH:MM:SS.mmm' in UTC: what TypeORM writes for datetime(3) on both MySQL (timezone Z) and SQLite. */
export function sqlDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23).replace('T', ' ');
}

function pick<T>(random: () => number, weighted: [T, number][]): T {
  let roll = random();
  for (const [value, weight] of weighted) {
    roll -= weight;
    if (roll < 0) return value;
  }
  return weighted[weighted.length - 1][0];
}

/** Realistic mix (sums to 1): most notifications are read or sent, a few pending or failed. */
const STATUS_MIX: [string, number][] = [
  ['read', 0.4],
  ['sent', 0.35],
  ['pending', 0.15],
  ['failed', 0.1],
];
const TYPE_MIX: [string, number][] = [
  ['email', 0.4],
  ['in_app', 0.3],
  ['push', 0.2],
  ['sms', 0.1],
];
const EVENTS = ['approved', 'rejected', 'commented on', 'shared with you', 'updated', 'submitted for review'];

export interface DataPlan {
  config: BenchConfig;
  now: number;
  passwordHash: string;
  /** Final number of notifications per user (user 0 is the heavy user). */
  counts: Int32Array;
  /** Notifications per user loaded in stage 1 (the growth baseline); the rest come in stage 2. */
  stage1: Int32Array;
  stage1Total: number;
  stage2Total: number;
  typicalCount: number;
  /** Role name -> id in the database being loaded (the service's migrations may already create roles). */
  roleIds: Record<keyof typeof ROLE_IDS, string>;
}

/**
 * User 0 is the heavy user; users 1..probeUsers are the "typical" users the list scenarios rotate
 * over. They get all their notifications in stage 1, so the growth comparison (stage 1 vs full)
 * reads exactly the same per-user data from a table ten times larger.
 */
export function makePlan(config: BenchConfig, passwordHash: string): DataPlan {
  const { users, notifications, heavy, probeUsers } = config;
  const counts = new Int32Array(users);
  counts[0] = heavy;
  const rest = notifications - heavy;
  const base = Math.floor(rest / (users - 1));
  let remainder = rest - base * (users - 1);
  for (let k = 1; k < users; k++) counts[k] = base + (remainder-- > 0 ? 1 : 0);

  const stage1 = new Int32Array(users);
  let probeTotal = 0;
  for (let k = 1; k <= probeUsers; k++) {
    stage1[k] = counts[k];
    probeTotal += counts[k];
  }
  const filler = Math.max(0, config.stage1 - probeTotal);
  const others = users - 1 - probeUsers;
  if (others > 0 && filler > 0) {
    const each = Math.floor(filler / others);
    let extra = filler - each * others;
    for (let k = probeUsers + 1; k < users; k++) {
      stage1[k] = Math.min(counts[k], each + (extra-- > 0 ? 1 : 0));
    }
  }
  let stage1Total = 0;
  for (let k = 0; k < users; k++) stage1Total += stage1[k];
  return {
    config,
    now: Math.floor(Date.now() / 1000) * 1000 - 60_000,
    passwordHash,
    counts,
    stage1,
    stage1Total,
    stage2Total: notifications - stage1Total,
    typicalCount: counts[1],
    roleIds: { ...ROLE_IDS },
  };
}

/** The roles the bench needs that the database does not have yet (migrations may seed default roles). */
export function roleRows(existing: Map<string, string>): Row[] {
  const wanted: Row[] = [
    [ROLE_IDS.admin, 'admin', JSON.stringify({ documents: ['update'], notifications: ['read'] })],
    [ROLE_IDS.editor, 'editor', JSON.stringify({ documents: ['update'] })],
    [ROLE_IDS.user, 'user', JSON.stringify({ notifications: ['read'] })],
  ];
  return wanted.filter((row) => !existing.has(row[1] as string));
}

/** Points the plan at the ids the roles really have in this database. */
export function useRoleIds(plan: DataPlan, rows: { id: string; name: string }[]): void {
  for (const row of rows) {
    if (row.name in plan.roleIds) plan.roleIds[row.name as keyof typeof ROLE_IDS] = row.id;
  }
}

const FIRST = ['Ada', 'Ben', 'Chloe', 'David', 'Emma', 'Felix', 'Grace', 'Hugo', 'Ines', 'Jonas', 'Katrin', 'Liam'];
const LAST = ['Martin', 'Keller', 'Meyer', 'Dubois', 'Rossi', 'Novak', 'Jansen', 'Silva', 'Berg', 'Moreau'];

export function* userRows(plan: DataPlan): Generator<Row> {
  for (let k = 0; k < plan.config.users; k++) {
    const email = `${username(k)}@bench.example.com`;
    yield [
      userId(k),
      username(k),
      identityKey(username(k)),
      email,
      identityKey(email),
      FIRST[k % FIRST.length],
      LAST[(k * 7) % LAST.length],
      plan.passwordHash,
      1,
      0,
      sqlDate(plan.now - 400 * DAY + k * 1000),
    ];
  }
}

/** Every user holds "user"; every 10th also "editor" (so the role join returns one or two rows). */
export function* userRoleRows(plan: DataPlan): Generator<Row> {
  for (let k = 0; k < plan.config.users; k++) {
    yield [userId(k), plan.roleIds.user];
    if (k % 10 === 5) yield [userId(k), plan.roleIds.editor];
  }
}

export function projectRows(plan: DataPlan): Row[] {
  return Array.from({ length: PROJECTS }, (_, p) => [projectId(p), `Project ${p + 1}`, sqlDate(plan.now - 500 * DAY)]);
}

/**
 * Every uploader is a contributor of the projects of its documents (the policy lets an uploader
 * change a document only while a contributor); document j is in project j mod PROJECTS.
 */
export function* projectMemberRows(plan: DataPlan): Generator<Row> {
  const { users, documents } = plan.config;
  for (let k = 0; k < users; k++) {
    const projects = new Set<number>();
    for (let j = k; j < documents && projects.size < PROJECTS; j += users) projects.add(j % PROJECTS);
    for (const p of projects) yield [projectId(p), userId(k), 'contributor', sqlDate(plan.now - 450 * DAY)];
  }
}

export function documentTypeRows(plan: DataPlan): Row[] {
  return DOCUMENT_TYPES.map((name, t) => [documentTypeId(t), name, identityKey(name), sqlDate(plan.now - 500 * DAY)]);
}

/** Document j is uploaded by user j mod users, so every user owns documents. */
export const documentOwner = (plan: DataPlan, j: number) => j % plan.config.users;

export function* documentRows(plan: DataPlan): Generator<Row> {
  const random = rng(7);
  for (let j = 0; j < plan.config.documents; j++) {
    const type = DOCUMENT_TYPES[j % DOCUMENT_TYPES.length];
    const created = plan.now - Math.floor(random() * 365 * DAY);
    yield [
      documentId(j),
      projectId(j % PROJECTS),
      documentTypeId(j % DOCUMENT_TYPES.length),
      `${type} ${j + 1} for project ${(j % PROJECTS) + 1}`,
      `Generated ${type.toLowerCase()} number ${j + 1}. Reviewed by the team; see the attached file for details.`,
      `${type.toLowerCase()}-${j + 1}.pdf`,
      10_000 + Math.floor(random() * 5_000_000),
      'application/pdf',
      1 + (j % 3),
      DOCUMENT_STATUSES[j % DOCUMENT_STATUSES.length],
      JSON.stringify(j % 2 ? [type.toLowerCase()] : [type.toLowerCase(), 'project']),
      JSON.stringify({ department: j % 3 ? 'engineering' : 'legal', priority: j % 5 }),
      userId(documentOwner(plan, j)),
      1,
      sqlDate(created),
      sqlDate(created + Math.floor(random() * 10 * DAY)),
    ];
  }
}

/** Each document's uploader takes part in it, as the upload writes (document_participants). */
export function* participantRows(plan: DataPlan): Generator<Row> {
  for (let j = 0; j < plan.config.documents; j++) yield [documentId(j), userId(documentOwner(plan, j))];
}

/**
 * The notifications of one stage, grouped by user (user 0 first) so the userId-leading indexes fill
 * almost in order. Within a user, createdAt is random, so a page's rows are spread over that
 * user's part of the primary key (ids are sequential in load order).
 */
export function* notificationRows(plan: DataPlan, stage: 1 | 2): Generator<Row> {
  let seq = stage === 1 ? 0 : plan.stage1Total;
  for (let k = 0; k < plan.config.users; k++) {
    const count = stage === 1 ? plan.stage1[k] : plan.counts[k] - plan.stage1[k];
    if (count <= 0) continue;
    const random = rng(1_000_003 * stage + k);
    const uid = userId(k);
    for (let i = 0; i < count; i++) {
      const created = plan.now - Math.floor(random() * 365 * DAY);
      const status = pick(random, STATUS_MIX);
      const type = pick(random, TYPE_MIX);
      const doc = Math.floor(random() * plan.config.documents) + 1;
      const event = EVENTS[Math.floor(random() * EVENTS.length)];
      const readAt = status === 'read' ? Math.min(plan.now, created + 60_000 + Math.floor(random() * 3 * DAY)) : null;
      yield [
        notificationId(seq++),
        uid,
        `Document ${doc} ${event}`,
        `Hello, document ${doc} was ${event}. Open the document management service to see the details ` +
          `and the full history of the change (${type}, ${status}).`,
        type,
        status,
        readAt === null ? null : sqlDate(readAt),
        sqlDate(created),
      ];
    }
  }
}
