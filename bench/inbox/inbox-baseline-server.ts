// The floor for GET /api/notifications/unread-count (the inbox phase, MariaDB): the token check of
// every baseline (bench/baseline-common.ts: verify, then the user by primary key), then one
// statement for the unread totals by type from the trigger-kept notification_counts, and the
// {unread, byType} JSON. Written from the schema and the API contract.
import { authenticate, createApp, db, listen } from '../baseline-common.js';

// The contract's types, in the order the answer lists them.
const NOTIFICATION_TYPES = ['email', 'sms', 'push', 'in_app'];
const UNREAD_SQL =
  'SELECT notificationType, SUM(total) AS total FROM notification_counts WHERE userId = ? AND isRead = 0 ' +
  'GROUP BY notificationType';

const app = createApp();

app.get('/api/notifications/unread-count', async (request) => {
  const caller = await authenticate(request);
  const rows = await db.all<{ notificationType: string; total: string | number }>(UNREAD_SQL, [caller.id]);
  const byType: Record<string, number> = Object.fromEntries(NOTIFICATION_TYPES.map((type) => [type, 0]));
  let unread = 0;
  for (const row of rows) {
    if (row.notificationType in byType) {
      byType[row.notificationType] = Number(row.total);
      unread += Number(row.total);
    }
  }
  return { unread, byType };
});

await listen(app);
