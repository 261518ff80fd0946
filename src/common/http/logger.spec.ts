import { Writable } from 'node:stream';
import fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createNestLogger, pinoOptions } from './logger.js';

/** A Fastify instance with the service's logger options, writing its lines into an array. */
function capture(level: Parameters<typeof pinoOptions>[0] = 'info') {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  const app = fastify({ logger: { ...pinoOptions(level), stream } });
  const logger = createNestLogger(app);
  return { app, logger, lines, raw };
}

describe('PinoNestLogger', () => {
  it("writes Nest's calls as pino lines: numeric level, time, context, message", () => {
    const { logger, lines } = capture();
    logger.log('started', 'Bootstrap');
    logger.warn('careful');
    logger.error('failed', 'Error: x\n    at somewhere (file.js:1:1)', 'Errors');
    logger.debug('hidden at info', 'Bootstrap');
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, context: 'Bootstrap', msg: 'started', time: expect.any(Number) }),
      expect.objectContaining({ level: 40, msg: 'careful' }),
      expect.objectContaining({ level: 50, context: 'Errors', msg: 'failed' }),
    ]);
    // The stack Nest passes to error() is not written.
    expect(JSON.stringify(lines)).not.toContain('at somewhere');
  });

  it('writes an Error as its class and message, without the stack', () => {
    const { logger, lines } = capture();
    logger.error(new TypeError('bad thing'), 'Boot');
    expect(lines[0]).toMatchObject({ level: 50, context: 'Boot', msg: 'bad thing', err: { type: 'TypeError' } });
    expect(JSON.stringify(lines[0])).not.toContain('logger.spec');
  });

  it('keeps the fields of a message object, and its own reqId once', () => {
    const { logger, lines, raw } = capture();
    logger.error({ msg: 'request failed', reqId: 'r-1', status: 500 }, 'Errors');
    expect(raw[0].match(/"reqId"/g)).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, context: 'Errors', msg: 'request failed', reqId: 'r-1', status: 500 });
  });

  it('writes nothing at LOG_LEVEL=silent', () => {
    const { logger, lines } = capture('silent');
    logger.fatal('even this');
    expect(lines).toEqual([]);
  });

  it("names a request only where the line says so: the error filter's reqId, once; no implicit request context", async () => {
    const { app, logger, lines, raw } = capture();
    app.post('/work', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      logger.log('inside the handler', 'Work');
      return { ok: true };
    });
    app.get('/fail', () => {
      logger.error({ msg: 'request failed', reqId: 'explicit' }, 'Errors');
      return {};
    });
    const response = await app.inject({
      method: 'POST',
      url: '/work',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ some: 'body' }),
    });
    expect(response.statusCode).toBe(200);
    await app.inject({ method: 'GET', url: '/fail' });

    // Fastify's own request lines carry the id; a Nest line inside a handler is a plain line.
    expect(lines.filter((line) => line.msg === 'incoming request').map((line) => line.reqId)).toHaveLength(2);
    expect(lines.find((line) => line.msg === 'inside the handler')).toMatchObject({ context: 'Work' });
    expect(lines.find((line) => line.msg === 'inside the handler')).not.toHaveProperty('reqId');
    expect(lines.find((line) => line.msg === 'request failed')).toMatchObject({ reqId: 'explicit' });
    expect(raw.find((line) => line.includes('request failed'))!.match(/"reqId"/g)).toHaveLength(1);
    await app.close();
  });
});
