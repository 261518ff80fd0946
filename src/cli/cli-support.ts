// Shared plumbing for the user administration commands (create-user, deactivate-user):
// flag parsing, password input, the database connection and error reporting without stack traces.
import 'reflect-metadata';
import { createInterface } from 'node:readline';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/errors/error-codes.js';
import { ConfigError } from '../config/config-error.js';
import { CliModule } from './cli.module.js';

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
 * Runs `work` in a Nest application context (no HTTP server) on the database named by DATABASE_URL
 * (./.env is read first, real variables win), after applying pending migrations, and closes it.
 * Nest's own logging is off: a command prints only its result or one error line.
 */
export async function withCliContext<T>(work: (context: INestApplicationContext) => Promise<T>): Promise<T> {
  const context = await NestFactory.createApplicationContext(CliModule, { logger: false, abortOnError: false });
  try {
    await context.get(DataSource).runMigrations({ transaction: 'each' });
    return await work(context);
  } finally {
    await context.close();
  }
}

/** The one line (and exit code) a failed command reports: never a stack trace. */
export function describeFailure(command: string, error: unknown): { line: string; exitCode: number } {
  if (error instanceof CliError) return { line: `${command}: ${error.message}`, exitCode: error.exitCode };
  // A rule of the service refused the change (e.g. a conflict); its details are written for people.
  if (error instanceof ApiError) return { line: `${command}: ${error.details}`, exitCode: 1 };
  if (error instanceof ConfigError) return { line: `${command}: configuration error: ${error.message}`, exitCode: 1 };
  // Driver errors such as ECONNREFUSED may carry only a code (an AggregateError has no message).
  const { name, message, code } = (error instanceof Error ? error : new Error(String(error))) as Error & {
    code?: string;
  };
  return { line: `${command} failed: ${name}: ${message || code || '(no message)'}`, exitCode: 1 };
}

/** Runs a command's main function: prints a failure as one clear line and exits. */
export function runCli(command: string, main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      const { line, exitCode } = describeFailure(command, error);
      console.error(line);
      process.exit(exitCode);
    },
  );
}
