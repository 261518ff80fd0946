import { ConfigError } from './config-error.js';

export type DatabaseConnection =
  | { type: 'sqlite'; path: string }
  | {
      type: 'mysql';
      host: string;
      port: number;
      username: string;
      password: string;
      database: string;
    };

export const DEFAULT_DATABASE_URL = 'sqlite:data/dms.sqlite';

/** DATABASE_URL: `sqlite:PATH` or `mysql://user:pass@host:port/db` (mariadb:// too). */
export function parseDatabaseUrl(raw: string): DatabaseConnection {
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!path) throw new ConfigError('DATABASE_URL sqlite: needs a file path, e.g. sqlite:data/dms.sqlite');
    return { type: 'sqlite', path };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('DATABASE_URL must be sqlite:PATH or mysql://user:pass@host:port/db');
  }
  if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') {
    throw new ConfigError(`DATABASE_URL scheme "${url.protocol}" is not supported; use sqlite: or mysql://`);
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!database) throw new ConfigError('DATABASE_URL must name a database, e.g. mysql://user:pass@host:3306/dms');
  return {
    type: 'mysql',
    host: url.hostname || '127.0.0.1',
    port: url.port ? Number(url.port) : 3306,
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database,
  };
}
