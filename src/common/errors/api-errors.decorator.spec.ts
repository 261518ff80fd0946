import 'reflect-metadata';
import { Body, Controller, Get, Post } from '@nestjs/common';
import { DECORATORS } from '@nestjs/swagger';
import { describe, expect, it } from 'vitest';
import { ApiErrors } from './api-errors.decorator.js';
import { ERROR_EXAMPLE_DETAILS } from './error-codes.js';

type Entry = { description: string; headers: Record<string, unknown>; content: Record<string, { examples: object }> };

@Controller('things')
class ThingsController {
  @Get(':thingId')
  @ApiErrors('document_not_found')
  read(): void {}

  @Post()
  @ApiErrors('conflict')
  @ApiErrors('idempotency_key_in_flight', ['payload_too_large', 'The file must be at most 10 bytes.'])
  create(@Body() _body: object): void {}
}

const responsesOf = (method: keyof ThingsController) =>
  Reflect.getMetadata(DECORATORS.API_RESPONSE, ThingsController.prototype[method]) as Record<string, Entry>;

describe('ApiErrors', () => {
  it('answers each status with its codes, their catalogue examples and the common errors', () => {
    const responses = responsesOf('read');
    expect(Object.keys(responses).sort()).toEqual(['400', '404', '500', '503']);
    expect(responses[404].description).toBe('`document_not_found`');
    expect(responses[404].content['application/json'].examples).toEqual({
      document_not_found: {
        summary: 'document_not_found',
        value: { error: 'document_not_found', details: ERROR_EXAMPLE_DETAILS.document_not_found },
      },
    });
    expect(responses[400].description).toBe('`validation_failed` or `bad_request`');
    expect(responses[503].headers).toEqual({ 'Retry-After': { $ref: '#/components/headers/Retry-After' } });
  });

  it('adds the body errors for a @Body() handler, and several on one handler add up', () => {
    const responses = responsesOf('create');
    expect(Object.keys(responses).sort()).toEqual(['400', '408', '409', '413', '415', '500', '503']);
    expect(responses[400].description).toBe('`validation_failed`, `bad_request` or `invalid_json`');
    expect(responses[409].description).toBe('`idempotency_key_in_flight` or `conflict`');
    expect(Object.keys(responses[409].content['application/json'].examples)).toEqual([
      'idempotency_key_in_flight',
      'conflict',
    ]);
    expect(responses[413].content['application/json'].examples).toEqual({
      payload_too_large: {
        summary: 'payload_too_large',
        value: { error: 'payload_too_large', details: 'The file must be at most 10 bytes.' },
      },
    });
  });
});
