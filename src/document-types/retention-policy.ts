/** What a document type's retention counts from: creation, or entering published / archived. */
export const RETENTION_FROM = ['created', 'published', 'archived'] as const;
export type RetentionFrom = (typeof RETENTION_FROM)[number];

/** What retention does to a document once its time has come. */
export const RETENTION_ACTIONS = ['archive', 'trash', 'purge'] as const;
export type RetentionAction = (typeof RETENTION_ACTIONS)[number];

/** The longest retention a type may declare: 100 years. */
export const RETENTION_MAX_DAYS = 36_500;

export interface RetentionPolicy {
  days: number;
  from: RetentionFrom;
  action: RetentionAction;
}
