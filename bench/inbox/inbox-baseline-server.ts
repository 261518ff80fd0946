// The floor for GET /api/notifications/unread-count: plain fastify + mysql2, written from the
// schema and the API contract. Per request: HS256 verify with a KeyObject, the user + roles lookup
// (the token must still be valid), then one read of the trigger-kept counts (the service's own
// statement) and the {unread, byType} JSON. Started by the inbox phase with DATABASE_URL, JWT_SECRET,
// PORT and HOST. A file of its own so bench/baseline-server.ts stays the list/update/login floor.
import { createSecretKey } from 'node:crypto';
import Fastify from 'fastify';
import jwt from 'jsonwebtoken';
import mysql from 'mysql2/promise';
import { unreadByTypeStatement } from '../../src/notifications/inbox.sql.js';
import { AUTH_CONTEXT_SQL } from '../../src/users/users.sql.js';

const env = process.env;
const secret = createSecretKey(Buffer.from(env.JWT_SECRET ?? ''));
const issuer = env.JWT_ISSUER || 'document-management-service';
const audience = env.JWT_AUDIENCE || 'document-management-service';
const url = new URL(env.DATABASE_URL ?? '');
const pool = mysql.createPool({
  host: url.hostname,
  port: Number(url.port || 3306),
  user: decodeURIComponent(url.username),
  password: decodeURIComponent(url.password),
  database: decodeURIComponent(url.pathname.slice(1)),
  connectionLimit: 10,
  waitForConnections: true,
  queueLimit: 500,
  enableKeepAlive: true,
  timezone: 'Z',
  charset: 'utf8mb4_unicode_ci',
});

// The contract's types, in the order the answer lists them (the entity module would load TypeORM).
const NOTIFICATION_TYPES = ['email', 'sms', 'push', 'in_app'];

const app = Fastify({ logger: false });
const unauthorized = { error: 'unauthorized', details: 'The token is not valid.' };

app.get('/health/live', async () => ({ status: 'ok' }));

app.get('/api/notifications/unread-count', async (request, reply) => {
  const header = request.headers.authorization;
  let claims: jwt.JwtPayload;
  try {
    if (!header?.startsWith('Bearer ')) throw new Error('no token');
    claims = jwt.verify(header.slice(7), secret, { algorithms: ['HS256'], issuer, audience }) as jwt.JwtPayload;
  } catch {
    return reply.status(401).send(unauthorized);
  }
  const [users] = (await pool.query(AUTH_CONTEXT_SQL, [claims.sub])) as unknown as [
    { isActive: number; tokenVersion: number }[],
  ];
  const user = users[0];
  if (!user || !user.isActive || user.tokenVersion !== claims.ver) return reply.status(401).send(unauthorized);
  const [rows] = (await pool.query(...unreadByTypeStatement(String(claims.sub)))) as unknown as [
    { notificationType: string; total: string | number }[],
  ];
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

await app.listen({ port: Number(env.PORT ?? 3000), host: env.HOST ?? '127.0.0.1' });
