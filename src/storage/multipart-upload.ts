import type { FastifyMultipartBaseOptions, Multipart } from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../common/errors/error-codes.js';
import { FileTooLargeError, type FileStore, type PendingWrite } from './file-store.js';
import { detectMediaType } from './media-type.js';

export { isMultipartUploadRoute, MULTIPART_UPLOAD_ROUTE } from '../common/http/transfer-routes.js';

/**
 * Options for registering `@fastify/multipart` (`app.register(fastifyMultipart, MULTIPART_PLUGIN_OPTIONS)`).
 * Without `attachFieldsToBody` the plugin parses nothing by itself: its content-type parser only
 * marks the request, and the body is read when a handler calls `readMultipartUpload()`. Limits
 * are set per call there.
 */
export const MULTIPART_PLUGIN_OPTIONS: FastifyMultipartBaseOptions = {};

export const FILE_PART = 'file';
export const MAX_FILE_NAME_LENGTH = 255;
const DEFAULT_MAX_FIELDS = 32;
const DEFAULT_MAX_FIELD_BYTES = 64 * 1024;

export interface MultipartUploadOptions {
  /** UPLOAD_MAX_BYTES: one byte more answers 413 payload_too_large, and nothing is kept. */
  maxFileBytes: number;
  /** At most this many text fields (default 32). */
  maxFields?: number;
  /** At most this many bytes per text field (default 64 KiB). */
  maxFieldBytes?: number;
  /** Fields that may be sent more than once (e.g. one `tags` field per tag); collected in `lists`. */
  repeatableFields?: readonly string[];
  /**
   * Called with the text fields once the file part starts and before any of its bytes are stored:
   * throw (e.g. an ApiError) to refuse the request without receiving the file.
   */
  beforeFile?: (fields: Record<string, string>, lists: Record<string, string[]>) => void | Promise<void>;
}

export interface MultipartUpload {
  /** The text fields sent before the file part, by name. */
  fields: Record<string, string>;
  /** The repeatable fields (`repeatableFields`) that were sent, each with its values in order. */
  lists: Record<string, string[]>;
  /** The client's file name reduced to its last path segment, NFC, validated. */
  fileName: string;
  /** The part's declared Content-Type (lower-cased essence, as busboy reports it). */
  declaredType: string;
  /** What to store and serve as the file's type (see detectMediaType). */
  mimeType: string;
  sha256: string;
  size: number;
  /**
   * The received bytes, not yet in the store. The caller commits them before it commits the
   * database row: `try { await upload.file.commit(); …insert… } finally { await upload.file.abort(); }`
   * (abort() is a no-op after commit). Should the caller forget, the pending write is aborted when
   * the response closes, so no temporary file outlives its request.
   */
  file: PendingWrite;
}

// C0, DEL, C1, and the bidi marks, embeddings, overrides and isolates (ALM, LRM, RLM, LRE…RLO, LRI…PDI).
// oxlint-disable-next-line no-control-regex -- matching control characters is the point
const FORBIDDEN_IN_FILE_NAME = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

function invalid(details: string): ApiError {
  return new ApiError('validation_failed', details);
}

/** A client-chosen name, safe to echo in `details`: bounded, and controls/bidi marks shown escaped. */
function quoted(name: string): string {
  const shown = name.length > 64 ? `${name.slice(0, 64)}…` : name;
  return JSON.stringify(shown).replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Length in Unicode code points (what "255 characters" means for a file name), not UTF-16 units. */
function codePoints(value: string): number {
  const astral = value.match(/[\ud800-\udbff][\udc00-\udfff]/g)?.length ?? 0;
  return value.length - astral;
}

/**
 * The name a file is stored under: the last path segment (after `/` or `\`) of what the client
 * sent, NFC-normalised, 1–255 code points, without control or bidi characters. Throws a
 * validation_failed ApiError naming the problem.
 */
export function cleanFileName(raw: string | undefined): string {
  if (raw === undefined || raw === '') throw invalid('The file name is empty; send the file with a file name.');
  if (FORBIDDEN_IN_FILE_NAME.test(raw)) {
    throw invalid('The file name must not contain control characters or bidirectional formatting characters.');
  }
  if (raw.trim() === '') throw invalid('The file name is empty; send the file with a file name.');
  const lastSeparator = Math.max(raw.lastIndexOf('/'), raw.lastIndexOf('\\'));
  const name = raw.slice(lastSeparator + 1).normalize('NFC');
  if (name.trim() === '' || name === '.' || name === '..') {
    throw invalid('The file name is only a path; send a name for the file itself.');
  }
  if (codePoints(name) > MAX_FILE_NAME_LENGTH) {
    throw invalid(`The file name must be at most ${MAX_FILE_NAME_LENGTH} characters long.`);
  }
  return name;
}

/** Maps what busboy and @fastify/multipart raise to the service's errors; anything else is ours (500). */
function translate(error: unknown, options: Required<Pick<MultipartUploadOptions, 'maxFields'>>): unknown {
  if (error instanceof ApiError) return error;
  if (error instanceof FileTooLargeError) {
    return new ApiError('payload_too_large', `The file must be at most ${error.maxBytes} bytes.`);
  }
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new ApiError('unsupported_media_type', 'Send the upload as multipart/form-data.');
    case 'FST_FILES_LIMIT':
      return invalid(`Send exactly one file, in the part named "${FILE_PART}"; a second file part was sent.`);
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return invalid(`Send at most ${options.maxFields} text fields before the file part.`);
    case 'FST_PROTO_VIOLATION':
      return invalid('A form field name is not allowed ("__proto__", "constructor" and the like).');
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return invalid('A form field declared as application/json is not valid JSON.');
    case 'FST_MP_PREMATURE_CLOSE':
    case 'ECONNRESET':
    case 'ERR_STREAM_PREMATURE_CLOSE':
      return invalid('The upload was interrupted before the multipart body was complete.');
    case 'FST_REQ_FILE_TOO_LARGE':
      return new ApiError('payload_too_large', 'The file is larger than this service accepts.');
  }
  // busboy's own parse errors are plain Errors: a missing boundary, a body cut short, a part cut short.
  const message = error instanceof Error ? error.message : '';
  if (/^Multipart: |Unexpected end of multipart data|terminated early|Malformed/i.test(message)) {
    return invalid('The multipart body is malformed.');
  }
  return error;
}

function copyLists(lists: Record<string, string[]>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(lists).map(([name, values]) => [name, [...values]]));
}

/**
 * Reads a multipart/form-data upload in streaming mode: text fields first, then exactly one file
 * part named `file`, which is streamed (never buffered whole) into a pending write of `store`,
 * hashed and counted on the way. Refuses, with an ApiError naming the problem: a request that is
 * not multipart (415), fields after the file, a missing or second file part, a file part under
 * another name, a text part named `file`, a repeated or over-long field, an empty file, a bad file
 * name (400), a file over `maxFileBytes` (413, as soon as the limit is crossed). On any failure,
 * including a client that disconnects mid-upload, nothing is left in the store or its tmp/.
 * When the request body was not read to its end, the error answer carries `Connection: close`, so
 * that the rest of an unwanted body is not read and the connection is not reused.
 */
export async function readMultipartUpload(
  request: FastifyRequest,
  reply: FastifyReply,
  store: FileStore,
  options: MultipartUploadOptions,
): Promise<MultipartUpload> {
  const maxFields = options.maxFields ?? DEFAULT_MAX_FIELDS;
  const maxFieldBytes = options.maxFieldBytes ?? DEFAULT_MAX_FIELD_BYTES;
  if (!request.isMultipart()) throw new ApiError('unsupported_media_type', 'Send the upload as multipart/form-data.');

  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  const lists: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  const repeatable = new Set(options.repeatableFields ?? []);
  let pending: PendingWrite | undefined;
  let fileName = '';
  let declaredType = '';
  try {
    const parts: AsyncIterable<Multipart> = request.parts({
      // We reduce the name ourselves, so that "only a path" can be told from "empty".
      preservePath: true,
      limits: {
        // One byte over the limit reaches the pending write, which then fails at once.
        fileSize: options.maxFileBytes + 1,
        files: 1,
        fields: maxFields,
        fieldSize: maxFieldBytes,
        parts: maxFields + 1,
        headerPairs: 16,
      },
    });
    for await (const part of parts) {
      if (part.type === 'field') {
        const name = part.fieldname;
        if (pending) {
          throw invalid(`Text fields must come before the file part; ${quoted(name)} came after it.`);
        }
        if (name === FILE_PART) {
          throw invalid(`The part "${FILE_PART}" must be a file, sent with a file name.`);
        }
        if (part.fieldnameTruncated || part.valueTruncated) {
          throw invalid(`The form field ${quoted(name)} is longer than ${maxFieldBytes} bytes.`);
        }
        if (typeof part.value !== 'string') {
          throw invalid(`The form field ${quoted(name)} must be plain text.`);
        }
        if (repeatable.has(name)) {
          (lists[name] ??= []).push(part.value);
          continue;
        }
        if (Object.hasOwn(fields, name)) throw invalid(`The form field ${quoted(name)} was sent more than once.`);
        fields[name] = part.value;
        continue;
      }
      if (part.fieldname !== FILE_PART) {
        throw invalid(`Send the file in the part named "${FILE_PART}", not ${quoted(part.fieldname)}.`);
      }
      fileName = cleanFileName(part.filename);
      declaredType = part.mimetype;
      await options.beforeFile?.({ ...fields }, copyLists(lists));
      const write = await store.begin({ maxBytes: options.maxFileBytes });
      pending = write;
      // Guarantees the temporary file goes with the response, whatever the caller does next.
      reply.raw.once('close', () => {
        write
          .abort()
          .catch((error: unknown) => request.log.error({ err: error }, 'removing an upload temp file failed'));
      });
      await write.write(part.file);
      if (write.size === 0) throw invalid('The file is empty.');
    }
    if (!pending) throw invalid(`The request has no file part named "${FILE_PART}".`);
  } catch (error) {
    await pending?.abort();
    const translated = translate(error, { maxFields });
    // Not `complete` (the parser has seen the whole body): bytes it parsed may still sit unread in
    // the request stream or in busboy, and a keep-alive connection would then never read its next
    // request. Only a body read to its end leaves the connection reusable.
    if (!request.raw.readableEnded) {
      void reply.header('connection', 'close');
      if (translated instanceof ApiError) {
        throw new ApiError(translated.code, translated.details, { ...translated.headers, connection: 'close' });
      }
    }
    throw translated;
  }

  return {
    fields: { ...fields },
    lists: copyLists(lists),
    fileName,
    declaredType,
    mimeType: await detectMediaType(pending.head, declaredType),
    sha256: pending.sha256,
    size: pending.size,
    file: pending,
  };
}
