import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream } from 'smtp-server';

export interface Received {
  to: string[];
  raw: string;
}

/** A real SMTP server in this process; `mode` decides how it answers RCPT TO. */
export class LocalSmtp {
  readonly received: Received[] = [];
  mode: 'accept' | 'permanent' | 'temporary' = 'accept';
  private server: SMTPServer | undefined;

  get running(): boolean {
    return this.server !== undefined;
  }

  constructor(readonly port: number) {}

  async start(): Promise<void> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      // Pooled clients keep connections open: close them at once when the test stops the server.
      closeTimeout: 50,
      onRcptTo: (_address: SMTPServerAddress, _session, callback) => {
        if (this.mode === 'accept') return callback();
        const error = Object.assign(new Error(this.mode === 'permanent' ? 'No such mailbox' : 'Try again later'), {
          responseCode: this.mode === 'permanent' ? 550 : 451,
        });
        return callback(error);
      },
      onData: (stream: SMTPServerDataStream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          this.received.push({
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(resolve) : resolve()));
    this.server = undefined;
  }
}
