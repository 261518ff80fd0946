import { Injectable } from '@nestjs/common';
import { AuditRepository } from './audit.repository.js';
import { chainedFields, chainHash, GENESIS_HASH, type ChainedFields } from './audit-chain.js';
import type { AuditEvent } from './entities/audit-event.entity.js';

/** Events read per statement while walking the chain. */
const WALK_PAGE = 1_000;

/** An exported event: the chained fields plus its links (hex). */
export type ExportedAuditEvent = ChainedFields & { previousHash: string; hash: string };

/** The first place the chain does not hold. */
export interface BrokenLink {
  sequence: number;
  id: string | null;
  problem: string;
}

export interface ChainVerification {
  checked: number;
  broken: BrokenLink | null;
}

/** Reading the hash chain: its head, an export of a time range, and the verification walk. */
@Injectable()
export class AuditChainService {
  constructor(private readonly events: AuditRepository) {}

  async head(): Promise<{ hash: string; count: number; at: string | null }> {
    const head = await this.events.head();
    if (!head || head.sequence === 0) return { hash: GENESIS_HASH, count: 0, at: null };
    return { hash: head.hash, count: head.sequence, at: head.at.toISOString() };
  }

  /** The chained events with at in [from, to), in chain order, as NDJSON lines. */
  async *exportLines(range: { from?: Date; to?: Date }): AsyncGenerator<string> {
    let after = 0;
    for (;;) {
      const page = await this.events.chainPage(after, WALK_PAGE, range);
      for (const event of page) yield `${JSON.stringify(exported(event))}\n`;
      if (page.length < WALK_PAGE) return;
      after = page.at(-1)!.sequence!;
    }
  }

  /**
   * Walks the whole chain from the genesis: each event must follow the previous one (sequence + 1),
   * name its hash as previousHash, and hash to its stored hash; the head must name the last event.
   */
  async verify(onProgress?: (checked: number, total: number) => void): Promise<ChainVerification> {
    const total = await this.events.countChained();
    const head = await this.events.head();
    let previous = { sequence: 0, hash: GENESIS_HASH };
    let checked = 0;
    for (;;) {
      const page = await this.events.chainPage(previous.sequence, WALK_PAGE);
      for (const event of page) {
        const problem = linkProblem(previous, event);
        if (problem) return { checked, broken: { sequence: previous.sequence + 1, id: event.id, problem } };
        previous = { sequence: event.sequence!, hash: event.hash! };
        checked++;
      }
      onProgress?.(checked, total);
      if (page.length < WALK_PAGE) break;
    }
    // A head beyond the last event: events at the end were removed (or the head was moved).
    if (head && (head.sequence !== previous.sequence || head.hash !== previous.hash)) {
      return {
        checked,
        broken: {
          sequence: previous.sequence + 1,
          id: null,
          problem: `the chain head names event ${head.sequence} (${head.hash}) but the chain ends at ${previous.sequence} (${previous.hash})`,
        },
      };
    }
    return { checked, broken: null };
  }
}

function exported(event: AuditEvent): ExportedAuditEvent {
  return {
    ...chainedFields(event, event.sequence!),
    previousHash: event.previousHash!,
    hash: event.hash!,
  };
}

function linkProblem(previous: { sequence: number; hash: string }, event: AuditEvent): string | null {
  if (event.sequence !== previous.sequence + 1) {
    return `event ${previous.sequence + 1} is missing (the next one found is ${event.sequence})`;
  }
  if (event.previousHash !== previous.hash) {
    return `previousHash ${event.previousHash} does not match the hash of event ${previous.sequence} (${previous.hash})`;
  }
  const expected = chainHash(previous.hash, chainedFields(event, event.sequence));
  if (event.hash !== expected) return `the stored hash ${event.hash} does not match its content (${expected})`;
  return null;
}
