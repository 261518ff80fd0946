import { InitialSchema1763800000000 } from './1763800000000-InitialSchema.js';
import { NotificationCounts1763800000001 } from './1763800000001-NotificationCounts.js';
import { DefaultRoles1763800000002 } from './1763800000002-DefaultRoles.js';
import { NotificationCountsRevision1763800000003 } from './1763800000003-NotificationCountsRevision.js';

/** Every migration, oldest first: the schema is created by these alone (never by synchronize). */
export const MIGRATIONS = [
  InitialSchema1763800000000,
  NotificationCounts1763800000001,
  DefaultRoles1763800000002,
  NotificationCountsRevision1763800000003,
];
