// Shared plumbing for the user administration commands (create-user, deactivate-user):
// flag parsing, password input, the database connection and error reporting without stack traces.
import 'reflect-metadata';
import { createInterface } from 'node:readline';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { validate, type ValidationError } from 'class-validator';
import { DataSource, QueryFailedError } from 'typeorm';
import { ConfigError, loadDatabaseConfig, loadDotEnvFile, type AppConfig } from '../config/app.config.js';
import { appDataSourceOptions } from '../data-source.js';
import { SqlRunner } from '../database/sql-runner.js';
import { Role } from '../users/entities/role.entity.js';
import { User } from '../users/entities/user.entity.js';
import { PasswordHasher } from '../users/password-hasher.service.js';
import { UsersRepository } from '../users/users.repository.js';
import { UsersService } from '../users/users.service.js';

/** A failure the operator can act on: printed as one line, exit code 1 (2 for bad usage). */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses --flags strictly: an unknown flag or a missing value is a usage error that shows the usage text. */
export function parseFlags<T extends Options>(argv: string[], options: T, usage: string) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${usage}`, 2);
  }
}

/** Runs class-validator on an input object and turns every failure into one readable message. */
export async function validateInput(input: object): Promise<void> {
  const errors: ValidationError[] = await validate(input, { forbidUnknownValues: true });
  const messages = errors.flatMap((error) => Object.values(error.constraints ?? {}));
  if (messages.length) throw new CliError(`Invalid input:\n  - ${messages.join('\n  - ')}`);
}

/**
 * The new password: from the environment variable if it is set, else the first line of standard
 * input. On a terminal it is typed twice without echo; when piped, only the first line is read.
 */
export async function readPassword(envName: string): Promise<string> {
  const fromEnv = process.env[envName];
  if (fromEnv !== undefined) return fromEnv;
  if (process.stdin.isTTY) {
    const first = await readHiddenLine('Password: ');
    const again = await readHiddenLine('Repeat password: ');
    if (first !== again) throw new CliError('The two passwords do not match.');
    return first;
  }
  const line = await readFirstLine();
  if (line === undefined) {
    throw new CliError(`No password given: set ${envName} or write the password on standard input.`);
  }
  return line;
}

async function readFirstLine(): Promise<string | undefined> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  try {
    for await (const line of lines) return line;
    return undefined;
  } finally {
    lines.close();
    process.stdin.destroy();
  }
}

/** Reads one line from the terminal in raw mode, so nothing typed is echoed. */
function readHiddenLine(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise<string>((resolve, reject) => {
    let value = '';
    const finish = (error?: CliError) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') return finish(new CliError('Cancelled.'));
        if (char === '\u007f' || char === '\b') value = Array.from(value).slice(0, -1).join('');
        else value += char;
      }
    };
    stdin.on('data', onData);
  });
}

/**
 * Opens the database named by DATABASE_URL (./.env is read first, real variables win), applies
 * pending migrations, runs `work` with a UsersService outside the Nest container, and closes.
 */
export async function withUsersService<T>(work: (users: UsersService, dataSource: DataSource) => Promise<T>) {
  loadDotEnvFile();
  const dataSource = new DataSource(appDataSourceOptions(loadDatabaseConfig()));
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
    // The hasher reads only passwordHashConcurrency from the app configuration; one hash at a time here.
    const hasher = new PasswordHasher({ passwordHashConcurrency: 1 } as AppConfig);
    const repository = new UsersRepository(
      dataSource,
      new SqlRunner(dataSource),
      dataSource.getRepository(User),
      dataSource.getRepository(Role),
    );
    const users = new UsersService(repository, hasher);
    return await work(users, dataSource);
  } finally {
    await dataSource.destroy();
  }
}

/** A unique index refused the row (MySQL/MariaDB or SQLite). */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const code = (error.driverError as { code?: string } | undefined)?.code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Runs a command's main function: prints failures as one clear message (never a stack trace) and exits. */
export function runCli(command: string, main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      if (error instanceof CliError) {
        console.error(`${command}: ${error.message}`);
        process.exit(error.exitCode);
      }
      if (error instanceof ConfigError) {
        console.error(`${command}: configuration error: ${error.message}`);
      } else {
        // Driver errors such as ECONNREFUSED may carry only a code (an AggregateError has no message).
        const { name, message, code } = (error instanceof Error ? error : new Error(String(error))) as Error & {
          code?: string;
        };
        console.error(`${command} failed: ${name}: ${message || code || '(no message)'}`);
      }
      process.exit(1);
    },
  );
}
