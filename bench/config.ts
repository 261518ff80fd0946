import { availableParallelism } from 'node:os';

/** An integer setting from the environment (`_` separators allowed). */
export function int(name: string, fallback: number, min = 0): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw.replace(/_/g, ''));
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number >= ${min}, got "${raw}"`);
  return Math.floor(value);
}

function num(name: string, fallback: number, min = 0): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number >= ${min}, got "${raw}"`);
  return value;
}

function flag(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  return raw === '1' || raw === 'true' || raw === 'yes';
}

export interface BenchConfig {
  users: number;
  documents: number;
  notifications: number;
  heavy: number;
  probeUsers: number;
  stage1: number;
  batch: number;
  duration: number;
  warmup: number;
  serverWarmup: number;
  repeats: number;
  connections: number;
  loginConnections: number;
  deepPage: number;
  floodRate: number;
  floodConnections: number;
  keep: boolean;
  reuse: boolean;
  mysql: boolean;
  sqlite: boolean;
  growth: boolean;
  mysqlHost: string;
  mysqlPort: number;
  mysqlUser: string;
  mysqlPassword: string;
  mysqlDatabase: string;
  sqlitePath: string;
  scenarios: string[] | undefined;
  password: string;
  jwtSecret: string;
  issuer: string;
  audience: string;
  cores: number;
}

/**
 * BENCH_QUICK=1: development sizes and short runs (about 10 minutes on 2 cores, with an A/B build
 * too): small data, one round of 3 s runs, no growth stage, the scenarios the ratio targets need.
 * Every variable set explicitly wins.
 */
export const QUICK_PRESET: Record<string, string> = {
  BENCH_USERS: '1000',
  BENCH_DOCUMENTS: '10000',
  BENCH_NOTIFICATIONS: '100000',
  BENCH_DURATION: '3',
  BENCH_WARMUP: '1',
  BENCH_REPEATS: '1',
  BENCH_SERVER_WARMUP: '2',
  BENCH_GROWTH: '0',
  BENCH_SCENARIOS: 'list-typical,list-heavy,list-heavy-deep,update,login,doc-list-typical,doc-search,doc-get',
  BENCH_DOC_ROWS: '20000',
  BENCH_DOC_PROJECTS: '100',
  BENCH_DOC_USERS: '20',
  BENCH_DOC_DURATION: '3',
  BENCH_DOC_WARMUP: '1',
  BENCH_DOC_REPEATS: '1',
  BENCH_DOC_BUFFER_POOL_MB: '0',
};

export function loadBenchConfig(): BenchConfig {
  if (flag('BENCH_QUICK', false)) {
    for (const [name, value] of Object.entries(QUICK_PRESET)) if (!process.env[name]) process.env[name] = value;
  }
  const users = int('BENCH_USERS', 10_000, 20);
  const notifications = int('BENCH_NOTIFICATIONS', 1_000_000, 1_000);
  const heavy = int('BENCH_HEAVY', Math.min(100_000, Math.floor(notifications / 10)), 100);
  if (heavy >= notifications) throw new Error('BENCH_HEAVY must be smaller than BENCH_NOTIFICATIONS');
  const probeUsers = int('BENCH_PROBE_USERS', Math.max(1, Math.min(1_000, Math.floor((users - 1) / 10))), 1);
  if (probeUsers >= users) throw new Error('BENCH_PROBE_USERS must be smaller than BENCH_USERS');
  const host = process.env.BENCH_MYSQL_HOST || '127.0.0.1';
  if (!['127.0.0.1', 'localhost', '::1'].includes(host)) {
    throw new Error(`BENCH_MYSQL_HOST must be a loopback address (the bench only targets this machine), got "${host}"`);
  }
  const database = process.env.BENCH_MYSQL_DATABASE || 'dms_bench';
  if (!/^[A-Za-z0-9_]+$/.test(database) || !/bench/i.test(database)) {
    throw new Error('BENCH_MYSQL_DATABASE must be a plain name containing "bench" (it is dropped at the end)');
  }
  const connections = int('BENCH_CONNECTIONS', 32, 1);
  const scenarios = process.env.BENCH_SCENARIOS?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return {
    users,
    documents: int('BENCH_DOCUMENTS', 100_000, 100),
    notifications,
    heavy,
    probeUsers,
    stage1: int('BENCH_STAGE1', Math.floor(notifications / 10), 0),
    batch: int('BENCH_BATCH', 2_000, 1),
    duration: num('BENCH_DURATION', 10, 1),
    warmup: num('BENCH_WARMUP', 2, 0),
    serverWarmup: num('BENCH_SERVER_WARMUP', 6, 0),
    repeats: int('BENCH_REPEATS', 3, 1),
    connections,
    loginConnections: int('BENCH_LOGIN_CONNECTIONS', connections, 1),
    deepPage: int('BENCH_DEEP_PAGE', 500, 2),
    floodRate: int('BENCH_FLOOD_RATE', 100, 1),
    floodConnections: int('BENCH_FLOOD_CONNECTIONS', 8, 1),
    keep: flag('BENCH_KEEP', false),
    reuse: flag('BENCH_REUSE', false),
    mysql: flag('BENCH_MYSQL', true),
    sqlite: flag('BENCH_SQLITE', true),
    growth: flag('BENCH_GROWTH', true),
    mysqlHost: host,
    mysqlPort: int('BENCH_MYSQL_PORT', 3306, 1),
    mysqlUser: process.env.BENCH_MYSQL_USER || 'root',
    mysqlPassword: process.env.BENCH_MYSQL_PASSWORD || '',
    mysqlDatabase: database,
    sqlitePath: process.env.BENCH_SQLITE_PATH || '/tmp/dms-bench/bench.sqlite',
    scenarios: scenarios?.length ? scenarios : undefined,
    password: 'Bench-Password-2026!',
    jwtSecret: 'bench-jwt-secret-0123456789-abcdefghijklmnopqrstuvwxyz',
    issuer: 'document-management-service',
    audience: 'document-management-service',
    cores: availableParallelism(),
  };
}

export function describeConfig(config: BenchConfig): string {
  return [
    `users=${config.users} (BENCH_USERS)`,
    `documents=${config.documents} (BENCH_DOCUMENTS)`,
    `notifications=${config.notifications} (BENCH_NOTIFICATIONS)`,
    `heavy user=${config.heavy} (BENCH_HEAVY)`,
    `typical/probe users=${config.probeUsers} (BENCH_PROBE_USERS)`,
    `growth stage 1=${config.stage1} rows (BENCH_STAGE1)`,
    `duration=${config.duration}s warmup=${config.warmup}s repeats=${config.repeats} (BENCH_DURATION, BENCH_WARMUP, BENCH_REPEATS)`,
    `server warm-up after start=${config.serverWarmup}s (BENCH_SERVER_WARMUP)`,
    `connections=${config.connections} login connections=${config.loginConnections} (BENCH_CONNECTIONS, BENCH_LOGIN_CONNECTIONS)`,
    `deep page=${config.deepPage} (BENCH_DEEP_PAGE)`,
    `flood: list at ${config.floodRate} req/s over ${config.floodConnections} connections (BENCH_FLOOD_RATE, BENCH_FLOOD_CONNECTIONS)`,
    `mysql=${config.mysql} sqlite=${config.sqlite} growth=${config.growth} keep=${config.keep} reuse=${config.reuse}`,
    `MariaDB ${config.mysqlUser}@${config.mysqlHost}:${config.mysqlPort}/${config.mysqlDatabase}, SQLite ${config.sqlitePath}`,
    process.env.BENCH_SERVICE_ENV
      ? `extra service environment: ${process.env.BENCH_SERVICE_ENV} (BENCH_SERVICE_ENV)`
      : 'extra service environment: none',
    process.env.BENCH_SERVICE_MAIN
      ? `service build under test: ${process.env.BENCH_SERVICE_MAIN} (BENCH_SERVICE_MAIN)`
      : 'service build under test: dist/src/main.js',
    process.env.BENCH_SERVICE_B_MAIN
      ? `A/B: second service build ${process.env.BENCH_SERVICE_B_MAIN} (BENCH_SERVICE_B_MAIN)`
      : 'A/B: off (BENCH_SERVICE_B_MAIN)',
    config.scenarios ? `scenarios=${config.scenarios.join(',')} (BENCH_SCENARIOS)` : 'scenarios=all',
  ].join('\n  ');
}
