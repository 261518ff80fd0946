// npm run audit:verify
// Walks the audit hash chain from its genesis, recomputing every event's hash (canonical form in
// src/audit/audit-chain.ts and README "Governance"), with a progress bar on standard error.
// Prints the first broken link and exits 1; exits 0 with the head's hash when the chain holds.
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AuditChainService } from '../audit/audit-chain.service.js';
import { AuditModule } from '../audit/audit.module.js';
import { CliError, parseFlags, runCli } from './cli-support.js';
import { CliModule } from './cli.module.js';

const USAGE = 'Usage: npm run audit:verify';
const BAR_WIDTH = 30;

@Module({ imports: [CliModule, AuditModule] })
class AuditCliModule {}

function progressBar(checked: number, total: number): string {
  const share = total === 0 ? 1 : Math.min(checked / total, 1);
  const filled = Math.round(share * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${checked}/${total} events`;
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), { help: { type: 'boolean', short: 'h' } }, USAGE);
  if (flags.help) {
    console.log(USAGE);
    return;
  }
  const context = await NestFactory.createApplicationContext(AuditCliModule, { logger: false, abortOnError: false });
  try {
    const chain = context.get(AuditChainService);
    // On a terminal the bar redraws in place; piped, one line per page read.
    const tty = process.stderr.isTTY;
    const { checked, broken } = await chain.verify((done, total) =>
      process.stderr.write(tty ? `\r${progressBar(done, total)}` : `${progressBar(done, total)}\n`),
    );
    if (tty) process.stderr.write('\n');
    if (broken) {
      console.log(
        `Broken link at sequence ${broken.sequence}${broken.id ? ` (event ${broken.id})` : ''}: ${broken.problem}`,
      );
      throw new CliError(`The audit chain is broken after ${checked} intact event(s).`);
    }
    const head = await chain.head();
    console.log(`The audit chain holds: ${checked} event(s) verified; head ${head.hash}.`);
  } finally {
    await context.close();
  }
}

runCli('audit:verify', main);
