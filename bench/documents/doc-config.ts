// Settings of the documents bench (issue 11's performance part), read from the environment once.
import { int, type BenchConfig } from '../config.js';

export interface DocBenchConfig {
  /** `only`: run just the documents phases; `0`: skip them. */
  mode: 'on' | 'off' | 'only';
  projects: number;
  rows: number;
  /** Projects whose documents are loaded before the growth measurement (the typical users' projects). */
  stage1Projects: number;
  /** Typical users the list scenarios rotate over; each is a member of `membershipsPerUser` projects. */
  users: number;
  membershipsPerUser: number;
  /** Concurrent searches of the search throughput scenario. */
  searchConnections: number;
  uploadConnections: number;
  uploadBytes: number;
  bigUploadBytes: number;
  downloadBytes: number;
  downloadConnections: number;
  rangeConnections: number;
  /** Seconds per measured run, warm-up seconds and A/B pairs of the documents scenarios. */
  duration: number;
  warmup: number;
  repeats: number;
  /**
   * MariaDB innodb_buffer_pool_size (MiB) for the phase, set with SET GLOBAL and restored after; 0
   * leaves the server's. A production server's pool holds the working set; the default 128 MB does
   * not hold the 1M-row documents table, and the search then measures disk reads.
   */
  bufferPoolMb: number;
  mysqlDatabase: string;
  sqlitePath: string;
  storageDir: string;
}

export function loadDocBenchConfig(config: BenchConfig): DocBenchConfig {
  const raw = (process.env.BENCH_DOCS ?? '1').trim();
  const mode = raw === 'only' ? 'only' : raw === '0' || raw === 'false' ? 'off' : 'on';
  const projects = int('BENCH_DOC_PROJECTS', 1_000, 10);
  const rows = int('BENCH_DOC_ROWS', 1_000_000, projects);
  const MiB = 1024 * 1024;
  return {
    mode,
    projects,
    rows,
    // A tenth of the projects (all the typical users' documents) is the growth baseline: 100k of 1M rows.
    stage1Projects: Math.max(1, Math.min(projects, int('BENCH_DOC_STAGE1_PROJECTS', Math.floor(projects / 10), 1))),
    users: int('BENCH_DOC_USERS', 100, 1),
    membershipsPerUser: int('BENCH_DOC_MEMBERSHIPS', 10, 1),
    // Fewer than the lists': a FULLTEXT prefix search takes tens of ms, and 32 at once on MariaDB
    // queue for seconds (no answer at all within a short run).
    searchConnections: int('BENCH_DOC_SEARCH_CONNECTIONS', 4, 1),
    uploadConnections: int('BENCH_DOC_UPLOAD_CONNECTIONS', 32, 1),
    uploadBytes: int('BENCH_DOC_UPLOAD_KB', 1024, 1) * 1024,
    bigUploadBytes: int('BENCH_DOC_BIG_UPLOAD_MB', 1024, 0) * MiB,
    downloadBytes: int('BENCH_DOC_DOWNLOAD_MB', 100, 1) * MiB,
    downloadConnections: int('BENCH_DOC_DOWNLOAD_CONNECTIONS', 1, 1),
    rangeConnections: int('BENCH_DOC_RANGE_CONNECTIONS', 1, 1),
    // Shorter than the notification scenarios' defaults: eleven scenarios per database.
    duration: int('BENCH_DOC_DURATION', 5, 1),
    warmup: int('BENCH_DOC_WARMUP', 1, 0),
    repeats: int('BENCH_DOC_REPEATS', 2, 1),
    bufferPoolMb: int('BENCH_DOC_BUFFER_POOL_MB', 2048, 0),
    // Separate from the notification bench's data, so each phase owns (and drops) its own.
    mysqlDatabase: `${config.mysqlDatabase}_docs`,
    sqlitePath: config.sqlitePath.replace(/(\.sqlite)?$/, '-docs.sqlite'),
    storageDir: process.env.BENCH_DOC_STORAGE_DIR || '/tmp/docbench/files',
  };
}

export function describeDocConfig(doc: DocBenchConfig): string {
  return [
    `documents phase=${doc.mode} (BENCH_DOCS=1|0|only)`,
    `${doc.rows} documents in ${doc.projects} projects, growth stage 1 = ${doc.stage1Projects} projects (BENCH_DOC_ROWS, BENCH_DOC_PROJECTS, BENCH_DOC_STAGE1_PROJECTS)`,
    `${doc.users} typical users x ${doc.membershipsPerUser} projects (BENCH_DOC_USERS, BENCH_DOC_MEMBERSHIPS)`,
    `uploads ${doc.uploadConnections} x ${doc.uploadBytes / 1024} KiB, big upload ${doc.bigUploadBytes / 1048576} MiB, download ${doc.downloadBytes / 1048576} MiB over ${doc.downloadConnections} connection(s)`,
    `runs of ${doc.duration} s after ${doc.warmup} s warm-up, ${doc.repeats} A/B pairs (BENCH_DOC_DURATION, BENCH_DOC_WARMUP, BENCH_DOC_REPEATS)`,
    `MariaDB innodb_buffer_pool_size for the phase: ${doc.bufferPoolMb ? `at least ${doc.bufferPoolMb} MiB, restored after` : "the server's"} (BENCH_DOC_BUFFER_POOL_MB)`,
    `MariaDB database ${doc.mysqlDatabase}, SQLite ${doc.sqlitePath}, files under ${doc.storageDir}`,
  ].join('\n  ');
}
