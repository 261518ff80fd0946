import { InitialSchema1763800000000 } from './1763800000000-InitialSchema.js';
import { NotificationCounts1763800000001 } from './1763800000001-NotificationCounts.js';
import { DefaultRoles1763800000002 } from './1763800000002-DefaultRoles.js';
import { NotificationCountsRevision1763800000003 } from './1763800000003-NotificationCountsRevision.js';
import { NotificationCountsWithoutRevision1763800000004 } from './1763800000004-NotificationCountsWithoutRevision.js';
import { ForeignKeyUpdateRules1763800000005 } from './1763800000005-ForeignKeyUpdateRules.js';
import { DocumentHistoryLongChanges1763800000006 } from './1763800000006-DocumentHistoryLongChanges.js';
import { UserIdentityKeys1763800000007 } from './1763800000007-UserIdentityKeys.js';
import { SqliteCanonicalValues1763800000008 } from './1763800000008-SqliteCanonicalValues.js';
import { ProjectMembership1763800000009 } from './1763800000009-ProjectMembership.js';
import { DocumentFilesAndTrash1763800000010 } from './1763800000010-DocumentFilesAndTrash.js';
import { OutboxEvents1763800000011 } from './1763800000011-OutboxEvents.js';
import { DocumentSearchAndWorkflow1763800000018 } from './1763800000018-DocumentSearchAndWorkflow.js';
import { AuditEvents1763800000020 } from './1763800000020-AuditEvents.js';
import { DocumentTypeNameKeys1763800000021 } from './1763800000021-DocumentTypeNameKeys.js';
import { DocumentTypeNameKeysRequired1763800000022 } from './1763800000022-DocumentTypeNameKeysRequired.js';
import { NotificationInbox1763800000030 } from './1763800000030-NotificationInbox.js';
import { NotificationCountsByStatement1763800000031 } from './1763800000031-NotificationCountsByStatement.js';
import { DocumentSearchScope1763800000032 } from './1763800000032-DocumentSearchScope.js';
import { DocumentHistoryAuthors1763800000033 } from './1763800000033-DocumentHistoryAuthors.js';
import { DocumentParticipants1763800000040 } from './1763800000040-DocumentParticipants.js';
import { NotificationCountsPerRow1763800000050 } from './1763800000050-NotificationCountsPerRow.js';
import { IdempotencyKeys1763800000070 } from './1763800000070-IdempotencyKeys.js';
import { DocumentComments1763800000080 } from './1763800000080-DocumentComments.js';
import { PendingFiles1763800000090 } from './1763800000090-PendingFiles.js';
import { JobLeases1763800000095 } from './1763800000095-JobLeases.js';
import { DocumentCounts1763800000110 } from './1763800000110-DocumentCounts.js';
import { ContentExtraction1763800000120 } from './1763800000120-ContentExtraction.js';
import { ReviewsLocksShares1763800000130 } from './1763800000130-ReviewsLocksShares.js';
import { AuditChain1763800000135 } from './1763800000135-AuditChain.js';
import { LegalHolds1763800000136 } from './1763800000136-LegalHolds.js';
import { DocumentTypeRetention1763800000137 } from './1763800000137-DocumentTypeRetention.js';
import { Watches1763800000140 } from './1763800000140-Watches.js';
import { DeliveryTiming1763800000141 } from './1763800000141-DeliveryTiming.js';
import { Webhooks1763800000145 } from './1763800000145-Webhooks.js';
import { SavedSearches1763800000146 } from './1763800000146-SavedSearches.js';
import { CustomFields1763800000150 } from './1763800000150-CustomFields.js';
import { AuditChainHeadTrigger1763800000160 } from './1763800000160-AuditChainHeadTrigger.js';
import { FieldFilterListIndexes1763800000170 } from './1763800000170-FieldFilterListIndexes.js';
import { rerunnable } from './rerunnable.js';

/** Every migration, oldest first: the schema is created by these alone (never by synchronize). */
export const MIGRATIONS = [
  InitialSchema1763800000000,
  NotificationCounts1763800000001,
  DefaultRoles1763800000002,
  NotificationCountsRevision1763800000003,
  NotificationCountsWithoutRevision1763800000004,
  ForeignKeyUpdateRules1763800000005,
  DocumentHistoryLongChanges1763800000006,
  UserIdentityKeys1763800000007,
  SqliteCanonicalValues1763800000008,
  ProjectMembership1763800000009,
  DocumentFilesAndTrash1763800000010,
  OutboxEvents1763800000011,
  DocumentSearchAndWorkflow1763800000018,
  AuditEvents1763800000020,
  DocumentTypeNameKeys1763800000021,
  DocumentTypeNameKeysRequired1763800000022,
  NotificationInbox1763800000030,
  NotificationCountsByStatement1763800000031,
  DocumentSearchScope1763800000032,
  DocumentHistoryAuthors1763800000033,
  DocumentParticipants1763800000040,
  NotificationCountsPerRow1763800000050,
  IdempotencyKeys1763800000070,
  DocumentComments1763800000080,
  PendingFiles1763800000090,
  JobLeases1763800000095,
  DocumentCounts1763800000110,
  ContentExtraction1763800000120,
  ReviewsLocksShares1763800000130,
  AuditChain1763800000135,
  LegalHolds1763800000136,
  DocumentTypeRetention1763800000137,
  Watches1763800000140,
  DeliveryTiming1763800000141,
  Webhooks1763800000145,
  SavedSearches1763800000146,
  CustomFields1763800000150,
  AuditChainHeadTrigger1763800000160,
  FieldFilterListIndexes1763800000170,
].map((migration) => rerunnable(migration));
