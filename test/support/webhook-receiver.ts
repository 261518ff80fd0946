import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real HTTP receiver on 127.0.0.1 for webhook deliveries: records every request; `statusFor` picks each answer. */
export interface WebhookReceiver {
  url: string;
  received: ReceivedRequest[];
  /** Requests to one path (e.g. "/ok"). */
  at(path: string): ReceivedRequest[];
  statusFor: (path: string) => number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const receiver = {
    url: '',
    received,
    at: (path: string) => received.filter((request) => request.path === path),
    statusFor: (_path: string) => 200,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(receiver.statusFor(path), { 'content-type': 'text/plain', connection: 'close' });
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return receiver;
}
