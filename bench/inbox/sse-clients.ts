// Many notification streams from one process (forked by the inbox phase, so the clients never share
// the event loop or the file descriptors of the service or the bench). Plain http requests without
// an agent (one socket per stream, no keep-alive pool). Messages over IPC:
//   in:  {type:'open', url, tokens, users, count, concurrency}  out: {type:'opened', open, failed, firstError, ms}
//   out: {type:'received', items:[[userIndex, receivedAtMs], ...]} for every `notification` event, batched
//   in:  {type:'close'}                                          out: exits
import { request, type ClientRequest } from 'node:http';

interface OpenCommand {
  type: 'open';
  url: string;
  /** tokens[i] belongs to users[i]; stream n is opened for users[n % users.length]. */
  tokens: string[];
  users: number[];
  count: number;
  concurrency: number;
}

const now = () => performance.timeOrigin + performance.now();
const requests: ClientRequest[] = [];
let pending: [number, number][] = [];

// Receipts go to the parent in batches: one IPC message per notification would cost more than the SSE parsing.
setInterval(() => {
  if (pending.length === 0) return;
  process.send?.({ type: 'received', items: pending });
  pending = [];
}, 50).unref();

/** Resolves once the stream answered 200 and sent its first unread-count (it is then subscribed). */
function openStream(command: OpenCommand, slot: number): Promise<void> {
  const index = slot % command.users.length;
  const userIndex = command.users[index];
  return new Promise((resolve, reject) => {
    const req = request(`${command.url}/api/notifications/stream`, {
      agent: false,
      headers: { authorization: `Bearer ${command.tokens[index]}`, accept: 'text/event-stream' },
    });
    requests.push(req);
    req.on('error', reject);
    req.on('response', (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        reject(new Error(`status ${response.statusCode}`));
        return;
      }
      response.setEncoding('utf8');
      let buffer = '';
      let ready = false;
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (message.includes('event: notification\n')) pending.push([userIndex, now()]);
          else if (!ready && message.includes('event: unread-count\n')) {
            ready = true;
            resolve();
          }
        }
      });
      response.on('error', () => undefined);
    });
    req.end();
  });
}

async function open(command: OpenCommand): Promise<void> {
  const started = performance.now();
  let next = 0;
  let opened = 0;
  let failed = 0;
  let firstError: string | undefined;
  const worker = async () => {
    while (next < command.count) {
      const slot = next++;
      try {
        await openStream(command, slot);
        opened++;
      } catch (error) {
        failed++;
        firstError ??= (error as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(command.concurrency, command.count) }, worker));
  process.send?.({ type: 'opened', open: opened, failed, firstError, ms: performance.now() - started });
}

process.on('message', (message: { type: string }) => {
  if (message.type === 'open') void open(message as OpenCommand);
  if (message.type === 'close') {
    for (const req of requests) req.destroy();
    process.exit(0);
  }
});
