// The floor for GET /api/notifications/unread-count: plain fastify + mysql2, written from the
// schema and the API contract, the cheapest correct way (issue 14): HS256 verify with a KeyObject,
// then ONE statement that checks the session (user exists, active, token version current; no row
// means 401) and reads the unread totals by type from the trigger-kept counts, and the
// {unread, byType} JSON. Started by the inbox phase with DATABASE_URL, JWT_SECRET,
// PORT and HOST. A file of its own so bench/baseline-server.ts stays the list/update/login floor.
import { createSecretKey } from 'node:crypto';
import Fastify from 'fastify';
import jwt from 'jsonwebtoken';
import mysql from 'mysql2/promise';
import { tokenVerifier } from '../verified-token.js';

// Written here from the schema, not imported from the service.
const SESSION_AND_UNREAD_SQL = `SELECT c.notificationType AS notificationType, SUM(c.total) AS total
  FROM users u LEFT JOIN notification_counts c ON c.userId = u.id AND c.isRead = 0
  WHERE u.id = ? AND u.isActive = 1 AND u.tokenVersion = ?
  GROUP BY c.notificationType`;

const env = process.env;
const secret = createSecretKey(Buffer.from(env.JWT_SECRET ?? ''));
const issuer = env.JWT_ISSUER || 'document-management-service';
const audience = env.JWT_AUDIENCE || 'document-management-service';
const verifyJwt = tokenVerifier(secret, issuer, audience);
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
    claims = verifyJwt(header.slice(7));
  } catch {
    return reply.status(401).send(unauthorized);
  }
  const [rows] = (await pool.query(SESSION_AND_UNREAD_SQL, [claims.sub, claims.ver])) as unknown as [
    { notificationType: string | null; total: string | number | null }[],
  ];
  if (rows.length === 0) return reply.status(401).send(unauthorized);
  const byType: Record<string, number> = Object.fromEntries(NOTIFICATION_TYPES.map((type) => [type, 0]));
  let unread = 0;
  for (const row of rows) {
    if (row.notificationType !== null && row.notificationType in byType) {
      byType[row.notificationType] = Number(row.total);
      unread += Number(row.total);
    }
  }
  return { unread, byType };
});

await app.listen({ port: Number(env.PORT ?? 3000), host: env.HOST ?? '127.0.0.1' });
