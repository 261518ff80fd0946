import { createHmac } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { parseReceiverUrl, resolveReceiver, type ReceiverRules } from './receiver-address.js';

/** The most of a receiver's answer that is read; the rest is dropped. */
export const RESPONSE_READ_LIMIT = 64 * 1024;

export const SECRET_PREFIX = 'whsec_';

/**
 * Connections to receivers are kept open between deliveries (no TCP or TLS handshake each), and
 * closed after 4 s idle: before the 5 s after which common servers close them, so a delivery rarely
 * meets a connection the receiver is closing. A new connection goes to the checked address (post).
 */
const KEEP_ALIVE = { keepAlive: true, timeout: 4_000, maxSockets: 32 };
const agents = { 'http:': new HttpAgent(KEEP_ALIVE), 'https:': new HttpsAgent(KEEP_ALIVE) };

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` with the key the secret's base64 part decodes to (Standard Webhooks). */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export interface SendOutcome {
  /** The receiver's status; null when none came (refused, unreachable, timed out). */
  status: number | null;
  durationMs: number;
  /** Why the attempt failed (null: a 2xx). Safe to show to the hook's managers. */
  error: string | null;
}

export interface Message {
  url: string;
  id: string;
  timestamp: number;
  body: string;
  secret: string;
}

/**
 * One POST of a signed message: the host is resolved and checked first and the connection goes
 * to that address (see resolveReceiver); redirects are not followed (a 3xx is a failure); at most
 * RESPONSE_READ_LIMIT bytes of the answer are read; the whole attempt ends after `timeoutMs`.
 */
export async function sendMessage(message: Message, rules: ReceiverRules, timeoutMs: number): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const url = parseReceiverUrl(message.url, rules);
    const signal = AbortSignal.timeout(timeoutMs);
    const address = await resolveReceiver(url.hostname.toLowerCase(), rules);
    const status = await post(url, address, message, signal);
    return { status, durationMs: elapsed(), error: status >= 200 && status < 300 ? null : `answered ${status}` };
  } catch (error) {
    return { status: null, durationMs: elapsed(), error: describe(error) };
  }
}

function post(url: URL, address: LookupAddress, message: Message, signal: AbortSignal): Promise<number> {
  const options: RequestOptions = {
    method: 'POST',
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port || undefined,
    path: `${url.pathname}${url.search}`,
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(message.body),
      'user-agent': 'document-management-service-webhooks/1',
      'webhook-id': message.id,
      'webhook-timestamp': String(message.timestamp),
      'webhook-signature': signature(message.secret, message.id, message.timestamp, message.body),
    },
    signal,
    // A new connection goes to the checked address, never a second resolution (DNS rebinding).
    lookup: (_host, lookupOptions, callback) => {
      if ((lookupOptions as { all?: boolean }).all)
        (callback as (e: null, a: LookupAddress[]) => void)(null, [address]);
      else (callback as (e: null, a: string, f: number) => void)(null, address.address, address.family);
    },
    agent: agents[url.protocol === 'https:' ? 'https:' : 'http:'],
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(options, (response: IncomingMessage) => {
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > RESPONSE_READ_LIMIT) {
          response.destroy();
          resolve(response.statusCode ?? 0);
        }
      });
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', reject);
      response.on('close', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
    request.end(message.body);
  });
}

/** A short reason without internals: the refusal, a timeout, or the network error's code. */
function describe(error: unknown): string {
  const { name, code, message } = error as { name?: string; code?: string; message?: string };
  if (name === 'ReceiverRefused') return (message ?? 'refused').slice(0, 255);
  if (name === 'TimeoutError' || name === 'AbortError') return 'timed out';
  return `network error${typeof code === 'string' ? ` (${code})` : ''}`;
}
