import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { FastifyInstance } from 'fastify';
import type { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module.js';
import { configureApp, createFastifyAdapter } from '../../src/app.setup.js';
import { createNestLogger } from '../../src/common/http/logger.js';
import { buildConfiguration, CONFIG_NAMESPACES } from '../../src/config/configuration.js';
import { Transactions } from '../../src/database/transactions.js';
import type { DomainEvent } from '../../src/events/domain-event.js';
import { OutboxRepository } from '../../src/events/outbox.repository.js';
import type { TestApp } from './test-app.js';

/** Polls `check` until it answers a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Records an event through the real outbox writer, in its own transaction (as a feature would). */
export async function recordEvent(
  t: TestApp,
  event: Partial<DomainEvent> & Pick<DomainEvent, 'type' | 'actorId'>,
  at?: Date,
): Promise<void> {
  const outbox = t.app.get(OutboxRepository);
  await t.app
    .get(Transactions)
    .run((tx) =>
      outbox.append(tx, { projectId: null, documentId: null, subjectUserId: null, payload: {}, ...event }, at),
    );
}

export async function undispatchedEvents(dataSource: DataSource): Promise<number> {
  const [row] = await dataSource.query<{ n: number | string }[]>(
    'SELECT COUNT(*) AS n FROM outbox_events WHERE dispatchedAt IS NULL',
  );
  return Number(row.n);
}

export interface StoredNotification {
  id: string;
  userId: string;
  notificationType: string;
  status: string;
  deliveryStatus: string;
  event: string | null;
  documentId: string | null;
  sourceEventId: string | null;
  subject: string;
  message: string;
  attempts: number;
}

export async function notificationsOfEvents(dataSource: DataSource, type: string): Promise<StoredNotification[]> {
  return dataSource.query(
    `SELECT id, userId, notificationType, status, deliveryStatus, event, documentId, sourceEventId, subject, message, attempts
     FROM notifications WHERE event = ? ORDER BY userId, notificationType`,
    [type],
  );
}

export interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
  /** A comment line (": heartbeat"). */
  comment?: string;
}

export interface SseClient {
  status: number;
  headers: Headers;
  /** Every event and comment received so far, in order. */
  events: SseEvent[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  isEnded(): boolean;
  close(): void;
  /** The JSON body when the answer was not a stream (an error). */
  body?: unknown;
}

/** A real HTTP client for Server-Sent Events: fetch with a streaming body, parsed as it arrives. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const events: SseEvent[] = [];
  let ended = false;
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const body: unknown = await response.json();
    return {
      status: response.status,
      headers: response.headers,
      events,
      ended: Promise.resolve(),
      isEnded: () => true,
      close: () => undefined,
      body,
    };
  }
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const endedPromise = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let boundary: number;
        while ((boundary = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const event: SseEvent = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) event.comment = line.slice(1).trim();
            else if (line.startsWith('id: ')) event.id = line.slice(4);
            else if (line.startsWith('event: ')) event.event = line.slice(7);
            else if (line.startsWith('data: ')) event.data = line.slice(6);
          }
          events.push(event);
        }
      }
    } catch {
      // Aborted by the test.
    } finally {
      ended = true;
    }
  })();
  return {
    status: response.status,
    headers: response.headers,
    events,
    ended: endedPromise,
    isEnded: () => ended,
    close: () => controller.abort(),
  };
}

/** Another instance of the app on the same database as `t` (not seeded again), as test-app.ts starts one. */
export async function startInstance(
  env: Record<string, string>,
): Promise<{ app: NestFastifyApplication; url: string }> {
  const config = buildConfiguration(env);
  const builder = Test.createTestingModule({ imports: [AppModule] });
  for (const namespace of CONFIG_NAMESPACES)
    builder.overrideProvider(namespace.KEY).useValue(config[namespace.namespace]);
  const moduleRef = await builder.compile();
  const adapter = createFastifyAdapter(config);
  const app = moduleRef.createNestApplication<NestFastifyApplication>(adapter, {
    logger: createNestLogger(adapter.getInstance<FastifyInstance>()),
  });
  await configureApp(app, config.http);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address() as { port: number };
  return { app, url: `http://127.0.0.1:${address.port}` };
}

export interface Json {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Calls the app as one of the logged-in users (`tokens` by username), JSON in and out. */
export function apiCaller(
  t: Pick<TestApp, 'url'>,
  tokens: Record<string, string>,
): (username: string, method: string, path: string, body?: unknown) => Promise<Json> {
  return async (username, method, path, body) => {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tokens[username]}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
}
