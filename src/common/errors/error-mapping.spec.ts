import { BadRequestException, HttpException, NotFoundException, ServiceUnavailableException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { ApiError } from './error-codes.js';
import { describeForLog, isDatabaseUnavailable, mapError } from './error-mapping.js';

describe('mapError', () => {
  it('maps coded errors to their status', () => {
    const mapped = mapError(new ApiError('document_not_found', 'No document has the id x.'));
    expect(mapped).toMatchObject({
      status: 404,
      body: { error: 'document_not_found', details: 'No document has the id x.' },
    });
    expect(mapped.unexpected).toBe(false);
  });

  it('maps Nest HTTP exceptions with a stable code and the message as details', () => {
    expect(mapError(new BadRequestException(['a must be a string', 'b is bad'])).body).toEqual({
      error: 'validation_failed',
      details: 'a must be a string; b is bad',
    });
    expect(mapError(new NotFoundException()).body.error).toBe('route_not_found');
  });

  it('unwraps Fastify body errors that Nest wrapped', () => {
    const tooLarge = Object.assign(new Error('too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 });
    const wrapped = new HttpException('too large', 413, { cause: tooLarge });
    expect(mapError(wrapped)).toMatchObject({ status: 413, body: { error: 'payload_too_large' } });
    const badJson = Object.assign(new Error('bad'), { code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 });
    expect(mapError(new HttpException('bad', 400, { cause: badJson })).body.error).toBe('invalid_json');
  });

  it('answers 503 with Retry-After when the database is unreachable', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), { code: 'ECONNREFUSED' });
    const mapped = mapError(refused);
    expect(mapped.status).toBe(503);
    expect(mapped.body.error).toBe('service_unavailable');
    expect(mapped.headers['retry-after']).toBe('5');
    expect(isDatabaseUnavailable(new QueryFailedError('SELECT 1', [], { code: 'SQLITE_BUSY' } as never))).toBe(true);
  });

  it('says whether a 503 is a conflict, a cluster node in transition or an unreachable database', () => {
    const failed = (code: string) => mapError(new QueryFailedError('UPDATE x', [], { code } as never));
    expect(failed('ER_LOCK_DEADLOCK').body.details).toMatch(/conflicting/);
    expect(failed('SQLITE_BUSY_SNAPSHOT').body.details).toMatch(/conflicting/);
    expect(failed('ER_UNKNOWN_COM_ERROR').body.details).toMatch(/joining or leaving its cluster/);
    for (const code of ['ER_LOCK_DEADLOCK', 'ER_UNKNOWN_COM_ERROR', 'ECONNREFUSED']) {
      expect({ status: failed(code).status, retry: failed(code).headers['retry-after'] }).toEqual({
        status: 503,
        retry: '5',
      });
    }
  });

  it('gives every 429 and 503 a Retry-After, keeping one the thrower set', () => {
    expect(mapError(new ApiError('too_many_requests', 'slow down')).headers['retry-after']).toBe('5');
    expect(
      mapError(new ApiError('too_many_requests', 'slow down', { 'retry-after': '42' })).headers['retry-after'],
    ).toBe('42');
    expect(mapError(new ServiceUnavailableException()).headers['retry-after']).toBe('5');
    expect(mapError(new HttpException('busy', 429)).headers['retry-after']).toBe('5');
    expect(mapError(new BadRequestException('x')).headers['retry-after']).toBeUndefined();
  });

  it('hides unexpected errors behind a generic 500', () => {
    const mapped = mapError(new TypeError("Cannot read properties of undefined (reading 'secret')"));
    expect(mapped.status).toBe(500);
    expect(mapped.body).toEqual({
      error: 'internal_error',
      details: 'An unexpected error occurred; it has been logged.',
    });
    expect(mapped.unexpected).toBe(true);
  });
});

describe('describeForLog', () => {
  it('keeps the class and driver code but never the message, SQL or stack', () => {
    const error = new QueryFailedError('SELECT * FROM users WHERE password = ?', ['hunter2'], {
      code: 'ER_PARSE_ERROR',
      message: 'You have an error near hunter2',
    } as never);
    const described = describeForLog(error);
    expect(described).toEqual({ type: 'QueryFailedError', code: 'ER_PARSE_ERROR' });
    expect(JSON.stringify(described)).not.toMatch(/SELECT|hunter2|at /);
  });
});
