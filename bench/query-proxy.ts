import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** MySQL protocol command bytes worth naming. */
const COMMANDS: Record<number, string> = {
  0x01: 'QUIT',
  0x02: 'INIT_DB',
  0x03: 'QUERY',
  0x0e: 'PING',
  0x11: 'CHANGE_USER',
  0x16: 'STMT_PREPARE',
  0x17: 'STMT_EXECUTE',
  0x19: 'STMT_CLOSE',
  0x1f: 'RESET_CONNECTION',
};

export interface CapturedCommand {
  command: string;
  sql?: string;
  /** Which client connection sent it (numbered in the order they connected). */
  connection: number;
}

/** Statements only the dispatcher sends (src/notifications/delivery): not the write batch's INSERT INTO outbox_events. */
const DELIVERY_STATEMENT =
  /^\s*(SELECT [^;]*\bFROM outbox_events\b|UPDATE outbox_events\b|SELECT uploadedBy AS userId\b|INSERT INTO notifications\b)/i;

/**
 * A loopback TCP proxy in front of MariaDB that counts the commands clients send (every client
 * packet with sequence id 0 after the handshake starts a command). Pointing a server's
 * DATABASE_URL at it counts exactly the statements that server issues, without server-side
 * logging or global settings on the shared MariaDB.
 */
export class QueryProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  captured: CapturedCommand[] = [];
  private connections = 0;

  async start(targetHost: string, targetPort: number): Promise<number> {
    this.server = createServer((client) => {
      const upstream = createConnection({ host: targetHost, port: targetPort });
      const connection = ++this.connections;
      this.sockets.add(client);
      this.sockets.add(upstream);
      let buffer: Buffer = Buffer.alloc(0);
      // Prepared statements by id (from the server's answer to STMT_PREPARE), so that an
      // STMT_EXECUTE is counted under its SQL. mysql2 sends one command at a time per connection:
      // the first bytes from the server after a STMT_PREPARE are its answer.
      const prepared = new Map<number, string>();
      let preparing: string | undefined;
      client.on('data', (chunk: Buffer) => {
        upstream.write(chunk);
        buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
        while (buffer.length >= 4) {
          const length = buffer[0] | (buffer[1] << 8) | (buffer[2] << 16);
          if (buffer.length < 4 + length) break;
          const sequence = buffer[3];
          if (sequence === 0 && length > 0) {
            const code = buffer[4];
            const command = COMMANDS[code] ?? `0x${code.toString(16)}`;
            const text =
              code === 0x03 || code === 0x16 ? buffer.toString('utf8', 5, 4 + Math.min(length, 4000)) : undefined;
            if (code === 0x16) preparing = text;
            const sql = code === 0x17 && length >= 5 ? prepared.get(buffer.readUInt32LE(5)) : text;
            this.captured.push({ command, sql, connection });
          }
          buffer = buffer.subarray(4 + length);
        }
      });
      upstream.on('data', (chunk: Buffer) => {
        // STMT_PREPARE_OK: header (4 bytes), status 0x00, statement id (4 bytes, little-endian).
        if (preparing !== undefined && chunk.length >= 9) {
          if (chunk[4] === 0x00) prepared.set(chunk.readUInt32LE(5), preparing);
          preparing = undefined;
        }
        client.write(chunk);
      });
      const close = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on('close', close);
      upstream.on('close', close);
      client.on('error', close);
      upstream.on('error', close);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (!address || typeof address !== 'object') throw new Error('proxy has no port');
    return address.port;
  }

  reset(): void {
    this.captured = [];
  }

  /** Statements only (QUERY / STMT_EXECUTE), pings and connection housekeeping excluded. */
  statements(): CapturedCommand[] {
    return this.captured.filter((c) => c.command === 'QUERY' || c.command === 'STMT_EXECUTE');
  }

  /**
   * The notification dispatcher's statements (the service delivers in the background what a
   * request's outbox row announces): its polls, claims and fan-out, and the START TRANSACTION ...
   * COMMIT around them on their connection. Counted apart from the request's own statements; a
   * server that is not being counted may also poll in the window.
   */
  static isDeliveryWork(statements: CapturedCommand[]): boolean[] {
    // A batch (START TRANSACTION; ...; COMMIT in one packet) is the dispatcher's if one of its statements is.
    const delivery = statements.map(({ sql = '' }) => sql.split(';\n').some((part) => DELIVERY_STATEMENT.test(part)));
    const open = new Map<number, number[]>();
    statements.forEach(({ sql = '', connection }, index) => {
      if (/^\s*START TRANSACTION\s*$/i.test(sql)) open.set(connection, [index]);
      else if (open.has(connection)) {
        const span = open.get(connection)!;
        span.push(index);
        if (/^\s*(COMMIT|ROLLBACK)\s*$/i.test(sql)) {
          open.delete(connection);
          if (span.some((i) => delivery[i])) for (const i of span) delivery[i] = true;
        }
      }
    });
    return delivery;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
