import { describe, expect, it } from 'vitest';
import { ApiError } from '../common/errors/error-codes.js';
import { ConfigError } from '../config/config-error.js';
import { CliError, describeFailure } from './cli-support.js';

describe('describeFailure', () => {
  it("prints an ApiError's details, as written for people (e.g. UsersService's conflict)", () => {
    const error = new ApiError('conflict', 'A user with this username already exists: carol');
    expect(describeFailure('user:create', error)).toEqual({
      line: 'user:create: A user with this username already exists: carol',
      exitCode: 1,
    });
  });

  it('keeps the exit code of a CliError and names configuration errors', () => {
    expect(describeFailure('x', new CliError('Missing --username', 2))).toEqual({
      line: 'x: Missing --username',
      exitCode: 2,
    });
    expect(describeFailure('x', new ConfigError('PORT must be an integer, got "a"')).line).toBe(
      'x: configuration error: PORT must be an integer, got "a"',
    );
  });

  it('names other errors by class and message (or driver code), without a stack', () => {
    const refused = Object.assign(new AggregateError([], ''), { code: 'ECONNREFUSED' });
    expect(describeFailure('seed', refused).line).toBe('seed failed: AggregateError: ECONNREFUSED');
    expect(describeFailure('seed', new TypeError('boom')).line).not.toMatch(/\n\s+at /);
  });
});
