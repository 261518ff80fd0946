import type { Type } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../common/errors/error-codes.js';
import { MAX_BODY_DEPTH } from '../common/http/request-guards.js';
import { createValidationPipe } from '../common/http/validation.pipe.js';
import { describeIllFormedText, inspectJson } from '../common/validation/json-bounds.validator.js';
import type { FileStore } from '../storage/file-store.js';
import { readMultipartUpload, type MultipartUpload } from '../storage/multipart-upload.js';

/** The global pipe's rules for values built from form fields (it checks what request hooks would). */
const validation = createValidationPipe();

export interface UploadFormOptions<T> {
  dto: Type<T>;
  maxFileBytes: number;
  maxFields: number;
  /** Checks on the validated fields before any byte of the file is stored (rights, target). */
  beforeFile?: (input: T) => Promise<void>;
}

/** A form's validated text fields and its received, not yet committed, file. */
export interface UploadForm<T> {
  input: T;
  upload: MultipartUpload;
}

function invalid(details: string): ApiError {
  return new ApiError('validation_failed', details);
}

/**
 * The form's text fields as the JSON body of its DTO would carry them: `tags` from one part per
 * tag or comma-separated parts (Swagger UI sends one; empty pieces dropped), `metadata` parsed from its JSON text.
 */
export function formBody(fields: Record<string, string>, lists: Record<string, string[]>): Record<string, unknown> {
  const body: Record<string, unknown> = { ...fields };
  if (lists.tags) {
    // A part without a comma is one tag, left to the DTO (a blank one is refused).
    body.tags = lists.tags.flatMap((part) =>
      part.includes(',')
        ? part
            .split(',')
            .map((tag) => tag.trim())
            .filter((tag) => tag.length > 0)
        : [part],
    );
  }
  for (const name of ['metadata', 'fields'] as const) {
    if (fields[name] === undefined) continue;
    try {
      body[name] = JSON.parse(fields[name]) as unknown;
    } catch {
      throw invalid(`${name} must be the JSON text of an object.`);
    }
    // What the JSON body guard checks before the pipe sees a body, for the same object as form text.
    const shape = inspectJson(body[name], MAX_BODY_DEPTH);
    if (shape.forbiddenKey) throw invalid(`${name} must not contain the key "${shape.forbiddenKey}".`);
    if (shape.depth > MAX_BODY_DEPTH)
      throw invalid(`${name} must not be nested more than ${MAX_BODY_DEPTH} levels deep.`);
    if (shape.illFormedText) throw invalid(describeIllFormedText(shape.illFormedText, name));
  }
  return body;
}

/**
 * Reads a multipart upload for a controller: the text fields validated by the DTO exactly as a
 * JSON body (same pipe: unknown fields refused, UUIDs lower-cased), `beforeFile` run before the
 * file is received, then the file streamed into a pending write of the store.
 */
export async function readUploadForm<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  store: FileStore,
  options: UploadFormOptions<T>,
): Promise<UploadForm<T>> {
  let input: T | undefined;
  const upload = await readMultipartUpload(request, reply, store, {
    maxFileBytes: options.maxFileBytes,
    maxFields: options.maxFields,
    repeatableFields: ['tags'],
    beforeFile: async (fields, lists) => {
      input = (await validation.transform(formBody(fields, lists), { type: 'body', metatype: options.dto })) as T;
      await options.beforeFile?.(input);
    },
  });
  return { input: input!, upload };
}
