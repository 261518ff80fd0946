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
  'fields',
];
export const DOC_FIELD_COLUMNS = [
  'id',
  'documentTypeId',
  'key',
  'label',
  'type',
  'required',
  'options',
  'min',
  'max',
  'createdAt',
];
export const DOC_FIELD_VALUE_COLUMNS = ['documentId', 'fieldId', 'textValue', 'numberValue'];

const hex12 = (value: number) => value.toString(16).padStart(12, '0');
/** Own id ranges (first group), apart from the notification bench's b000000x ids. */
export const docUserId = (k: number) => `b0000011-0000-4000-8000-${hex12(k)}`;
export const docDocumentId = (j: number) => `b0000012-0000-4000-8000-${hex12(j)}`;
export const docProjectId = (p: number) => `b0000014-0000-4000-8000-${hex12(p)}`;
export const docTypeId = (t: number) => `b0000015-0000-4000-8000-${hex12(t)}`;
export const docFieldId = (f: number) => `b0000016-0000-4000-8000-${hex12(f)}`;
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

/**
 * Custom fields (issue 29): type 0 (every 8th document, 125k of 1M) declares a select `region` and
 * a number `amount`; each of its documents holds both, spread evenly by a multiplicative hash.
 */
export const FIELD_TYPE = 0;
export const REGIONS = ['north', 'south', 'east', 'west'];
export const AMOUNT_MAX = 100_000;
const fieldHash = (j: number) => Math.imul(j + 1, 2246822519) >>> 0;
function fieldValues(j: number): { region: string; amount: number } | null {
  if (j % TYPES.length !== FIELD_TYPE) return null;
  const hash = fieldHash(j);
  // The high bits: j is a multiple of 8 here, so the low bits of the product never change.
  return { region: REGIONS[hash >>> 30], amount: (hash >>> 8) % (AMOUNT_MAX + 1) };
}

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
        fieldValues(j) && JSON.stringify(fieldValues(j)),
      ];
    }
  }
}

const stageRange = (plan: DocPlan, stage: 1 | 2): [number, number] =>
  stage === 1 ? [0, documentsInStage(plan, 1)] : [documentsInStage(plan, 1), plan.doc.rows];

export function docFieldRows(plan: DocPlan): Row[] {
  const at = sqlDate(plan.now - 500 * DAY);
  return [
    [docFieldId(0), docTypeId(FIELD_TYPE), 'region', 'Region', 'select', 0, JSON.stringify(REGIONS), null, null, at],
    [docFieldId(1), docTypeId(FIELD_TYPE), 'amount', 'Amount', 'number', 0, null, 0, AMOUNT_MAX, at],
  ];
}

/** The typed rows of the stage's documents of FIELD_TYPE (select as text, number as number). */
export function* docFieldValueRows(plan: DocPlan, stage: 1 | 2): Generator<Row> {
  const [first, last] = stageRange(plan, stage);
  for (let j = first; j < last; j++) {
    const values = fieldValues(j);
    if (!values) continue;
    yield [docDocumentId(j), docFieldId(0), values.region, null];
    yield [docDocumentId(j), docFieldId(1), null, values.amount];
  }
}

/** How many documents of the stage hold field values. */
export function fieldDocumentsInStage(plan: DocPlan, stage: 1 | 2): number {
  let count = 0;
  const [first, last] = stageRange(plan, stage);
  for (let j = first; j < last; j++) if (fieldValues(j)) count++;
  return count;
}
