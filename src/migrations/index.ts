import { InitialSchema1763800000000 } from './1763800000000-InitialSchema.js';
import { NotificationCounts1763800000001 } from './1763800000001-NotificationCounts.js';
import { DefaultRoles1763800000002 } from './1763800000002-DefaultRoles.js';
import { NotificationCountsRevision1763800000003 } from './1763800000003-NotificationCountsRevision.js';
// THROW-AWAY (data-layer branch): replaced by the schema branch's identity-key migration at merge.
import { UserIdentityKeysDataLayerStandIn1763800000004 } from './1763800000004-UserIdentityKeysDataLayerStandIn.js';

/** Every migration, oldest first: the schema is created by these alone (never by synchronize). */
export const MIGRATIONS = [
  InitialSchema1763800000000,
  NotificationCounts1763800000001,
  DefaultRoles1763800000002,
  NotificationCountsRevision1763800000003,
  UserIdentityKeysDataLayerStandIn1763800000004,
];
