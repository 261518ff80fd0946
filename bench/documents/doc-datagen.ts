// Rows of the documents bench: projects, typical users with their memberships, document types and
// documents with realistic titles. Deterministic, so both databases and every run get the same data.
import { createHash } from 'node:crypto';
import { identityKey } from '../../src/common/text/identity-key.js';
import { sqlDate, type Row } from '../datagen.js';
import { rng } from '../util.js';
import type { DocBenchConfig } from './doc-config.js';

export const DOC_USER_COLUMNS = [
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
export const DOC_USER_ROLE_COLUMNS = ['userId', 'roleId'];
export const DOC_PROJECT_COLUMNS = ['id', 'name', 'description', 'createdAt'];
export const DOC_MEMBER_COLUMNS = ['projectId', 'userId', 'role', 'createdAt'];
export const DOC_TYPE_COLUMNS = ['id', 'name', 'nameKey', 'description', 'createdAt'];
/** Every column of `documents` (the migrations'), in the order docDocumentRows() gives them. */
export const DOC_DOCUMENT_COLUMNS = [
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
  'sha256',
  'deletedAt',
  'deletedBy',
];

const hex12 = (value: number) => value.toString(16).padStart(12, '0');
/** Own id ranges (first group), apart from the notification bench's b000000x ids. */
export const docUserId = (k: number) => `b0000011-0000-4000-8000-${hex12(k)}`;
export const docDocumentId = (j: number) => `b0000012-0000-4000-8000-${hex12(j)}`;
export const docProjectId = (p: number) => `b0000014-0000-4000-8000-${hex12(p)}`;
export const docTypeId = (t: number) => `b0000015-0000-4000-8000-${hex12(t)}`;
export const docUsername = (k: number) => `docbench_user_${k}`;

/**
 * The search word: in the title of 0.5% of the documents (every 200th by a multiplicative hash, so
 * spread over all projects) and nowhere else; no other word of the vocabulary starts with it.
 */
export const RARE_WORD = 'quasar';
const RARE_PER_MILLE = 5;
const isRare = (j: number) => Math.imul(j + 1, 2654435761) >>> 0 < (0x100000000 / 1000) * RARE_PER_MILLE;

const TYPES = ['Contract', 'Specification', 'Invoice', 'Report', 'Policy', 'Drawing', 'Minutes', 'Offer'];
const SUBJECTS = [
  'supplier',
  'maintenance',
  'warehouse',
  'pipeline',
  'turbine',
  'payroll',
  'onboarding',
  'procurement',
  'compliance',
  'firmware',
  'logistics',
  'insurance',
  'facility',
  'network',
  'migration',
  'audit',
  'budget',
  'roadmap',
  'vendor',
  'safety',
];
const QUALIFIERS = ['draft', 'signed', 'revised', 'annual', 'quarterly', 'final', 'internal', 'external'];
const DEPARTMENTS = ['legal', 'engineering', 'finance', 'operations', 'sales'];
const STATUSES = ['draft', 'draft', 'in_review', 'published', 'published', 'archived'];
const DAY = 86_400_000;

export interface DocPlan {
  doc: DocBenchConfig;
  now: number;
  passwordHash: string;
  perProject: number;
}

export function makeDocPlan(doc: DocBenchConfig, passwordHash: string): DocPlan {
  return { doc, now: Math.floor(Date.now() / 1000) * 1000 - 60_000, passwordHash, perProject: doc.rows / doc.projects };
}

/** Documents of project p: ids p*perProject .. (the last project takes the remainder). */
function projectRange(plan: DocPlan, p: number): [number, number] {
  const per = Math.floor(plan.doc.rows / plan.doc.projects);
  const start = p * per;
  return [start, p === plan.doc.projects - 1 ? plan.doc.rows : start + per];
}

export const documentsInStage = (plan: DocPlan, stage: 1 | 2): number =>
  stage === 1 ? projectRange(plan, plan.doc.stage1Projects - 1)[1] : plan.doc.rows - documentsInStage(plan, 1);

/** The reader (role editor: documents:read, sees everything) comes after the typical users. */
export const docReader = (plan: DocPlan) => plan.doc.users + 1;

/**
 * User 0 uploaded the loaded documents and manages every project; users 1..users are the typical
 * users; docReader() reads everything by its role.
 */
export function* docUserRows(plan: DocPlan): Generator<Row> {
  for (let k = 0; k <= docReader(plan); k++) {
    const email = `${docUsername(k)}@docbench.example.com`;
    yield [
      docUserId(k),
      docUsername(k),
      identityKey(docUsername(k)),
      email,
      identityKey(email),
      'Doc',
      `Bench ${k}`,
      plan.passwordHash,
      1,
      0,
      sqlDate(plan.now - 400 * DAY),
    ];
  }
}

export function* docUserRoleRows(plan: DocPlan, userRoleId: string, readerRoleId: string): Generator<Row> {
  for (let k = 0; k <= plan.doc.users; k++) yield [docUserId(k), userRoleId];
  yield [docUserId(docReader(plan)), readerRoleId];
}

export function* docProjectRows(plan: DocPlan): Generator<Row> {
  for (let p = 0; p < plan.doc.projects; p++) {
    yield [docProjectId(p), `${SUBJECTS[p % SUBJECTS.length]} project ${p + 1}`, '', sqlDate(plan.now - 500 * DAY)];
  }
}

/**
 * The projects of typical user k (1-based): `membershipsPerUser` distinct projects among the stage-1
 * projects, spread evenly, so all their documents are in the table before the growth measurement.
 */
export function memberProjects(plan: DocPlan, k: number): number[] {
  const pool = plan.doc.stage1Projects;
  const count = Math.min(plan.doc.membershipsPerUser, pool);
  const step = Math.max(1, Math.floor(pool / count));
  return Array.from({ length: count }, (_, i) => (k + i * step) % pool);
}

export function* docMemberRows(plan: DocPlan): Generator<Row> {
  const at = sqlDate(plan.now - 450 * DAY);
  for (let p = 0; p < plan.doc.projects; p++) yield [docProjectId(p), docUserId(0), 'manager', at];
  for (let k = 1; k <= plan.doc.users; k++) {
    for (const p of memberProjects(plan, k)) yield [docProjectId(p), docUserId(k), 'contributor', at];
  }
}

export function docTypeRows(plan: DocPlan): Row[] {
  return TYPES.map((name, t) => [
    docTypeId(t),
    `Bench ${name}`,
    identityKey(`Bench ${name}`),
    '',
    sqlDate(plan.now - 500 * DAY),
  ]);
}

/** The documents of one stage: stage 1 = the first stage1Projects projects, stage 2 the rest. */
export function* docDocumentRows(plan: DocPlan, stage: 1 | 2): Generator<Row> {
  const first = stage === 1 ? 0 : plan.doc.stage1Projects;
  const last = stage === 1 ? plan.doc.stage1Projects : plan.doc.projects;
  for (let p = first; p < last; p++) {
    const random = rng(31 * p + 7);
    const [start, end] = projectRange(plan, p);
    for (let j = start; j < end; j++) {
      const t = j % TYPES.length;
      const subject = SUBJECTS[Math.floor(random() * SUBJECTS.length)];
      const qualifier = QUALIFIERS[Math.floor(random() * QUALIFIERS.length)];
      const year = 2020 + Math.floor(random() * 7);
      const title = `${TYPES[t]} ${qualifier} ${subject}${isRare(j) ? ` ${RARE_WORD}` : ''} ${year}-${(j % 997) + 1}`;
      const created = plan.now - Math.floor(random() * 365 * DAY);
      const department = DEPARTMENTS[Math.floor(random() * DEPARTMENTS.length)];
      yield [
        docDocumentId(j),
        docProjectId(p),
        docTypeId(t),
        title,
        `${TYPES[t]} about the ${subject} work of the ${department} team, ${qualifier} edition.`,
        `${TYPES[t].toLowerCase()}-${subject}-${j + 1}.pdf`,
        20_000 + Math.floor(random() * 2_000_000),
        'application/pdf',
        1,
        STATUSES[j % STATUSES.length],
        JSON.stringify([subject, department]),
        JSON.stringify({ department, year }),
        docUserId(0),
        1,
        sqlDate(created),
        sqlDate(created + Math.floor(random() * 20 * DAY)),
        createHash('sha256').update(docDocumentId(j)).digest('hex'),
        null,
        null,
      ];
    }
  }
}
