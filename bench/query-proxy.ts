import { createConnection, createServer, type Server, type Socket } from 'node:net';
import mysql from 'mysql2';

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
      const prepared = new Map<number, { sql: string; params: number }>();
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
            const text = code === 0x03 || code === 0x16 ? buffer.toString('utf8', 5, 4 + length) : undefined;
            if (code === 0x16) preparing = text;
            const statement = code === 0x17 && length >= 5 ? prepared.get(buffer.readUInt32LE(5)) : undefined;
            const sql = statement ? withValues(statement, buffer.subarray(4, 4 + length)) : text;
            this.captured.push({ command, sql, connection });
          }
          buffer = buffer.subarray(4 + length);
        }
      });
      upstream.on('data', (chunk: Buffer) => {
        // STMT_PREPARE_OK: header (4 bytes), status 0x00, statement id (4 bytes), columns (2), parameters (2).
        if (preparing !== undefined && chunk.length >= 13) {
          if (chunk[4] === 0x00)
            prepared.set(chunk.readUInt32LE(5), { sql: preparing, params: chunk.readUInt16LE(11) });
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

/**
 * An executed prepared statement as the text statement it stands for (its values escaped into the
 * placeholders, as mysql2's text protocol would send them), for EXPLAIN/ANALYZE of what was run.
 * `body` is the COM_STMT_EXECUTE payload: command, statement id, flags, iteration count, then the
 * NULL bitmap, the new-parameters-bound flag, a type per parameter and the non-NULL values.
 * Undefined when a value's type is not one mysql2 sends.
 */
function withValues(statement: { sql: string; params: number }, body: Buffer): string | undefined {
  if (statement.params === 0) return statement.sql;
  let offset = 10;
  const nulls = body.subarray(offset, offset + ((statement.params + 7) >> 3));
  offset += nulls.length;
  if (body[offset++] !== 1) return undefined;
  const types: number[] = [];
  for (let i = 0; i < statement.params; i++, offset += 2) types.push(body[offset]);
  const lengthCoded = (): number => {
    const first = body[offset++];
    if (first < 0xfb) return first;
    const size = first === 0xfc ? 2 : first === 0xfd ? 3 : 8;
    const value = body.readUIntLE(offset, Math.min(size, 6));
    offset += size;
    return value;
  };
  const values: (string | number | null)[] = [];
  for (let i = 0; i < statement.params; i++) {
    if (nulls[i >> 3] & (1 << (i & 7))) {
      values.push(null);
      continue;
    }
    const type = types[i];
    if (type === 0x01) values.push(body.readInt8(offset++));
    else if (type === 0x03) {
      values.push(body.readInt32LE(offset));
      offset += 4;
    } else if (type === 0x08) {
      values.push(Number(body.readBigInt64LE(offset)));
      offset += 8;
    } else if (type === 0x05) {
      values.push(body.readDoubleLE(offset));
      offset += 8;
    } else if (type === 0x0c || type === 0x07 || type === 0x0a) {
      const size = body[offset++];
      const part = (at: number, bytes: number) => body.readUIntLE(offset + at, bytes);
      const two = (n: number) => String(n).padStart(2, '0');
      let text =
        size >= 4 ? `${String(part(0, 2)).padStart(4, '0')}-${two(part(2, 1))}-${two(part(3, 1))}` : '0000-00-00';
      if (size >= 7) text += ` ${two(part(4, 1))}:${two(part(5, 1))}:${two(part(6, 1))}`;
      if (size >= 11) text += `.${String(part(7, 4)).padStart(6, '0')}`;
      values.push(text);
      offset += size;
    } else if ([0x0f, 0xf5, 0xfc, 0xfd, 0xfe].includes(type)) {
      const size = lengthCoded();
      values.push(body.toString('utf8', offset, offset + size));
      offset += size;
    } else return undefined;
  }
  return mysql.format(statement.sql, values);
}
