// Baseline of the S3 transfer bench: the plainest server that streams the same bytes to and from
// the same S3 engine with @aws-sdk/client-s3 + lib-storage (same part size, same checksum
// settings), hashing uploads as they pass. No database, no auth, no content addressing: the cost
// of moving the bytes, against which the service's S3 driver is judged.
import { createHash, randomBytes } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import multipart from '@fastify/multipart';
import Fastify from 'fastify';
import { createS3Client } from '../../src/storage/s3-file-store.js';

const bucket = process.env.S3_BUCKET!;
const client = createS3Client({
  endpoint: process.env.S3_ENDPOINT,
  bucket,
  region: process.env.S3_REGION ?? 'us-east-1',
  accessKeyId: process.env.S3_ACCESS_KEY_ID,
  secretAccessKey: process.env.S3_SECRET_ACCESS_KEY,
  forcePathStyle: true,
  presignedDownloads: false,
});

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
await app.register(multipart);

app.post('/upload', async (request, reply) => {
  const part = await request.file({ limits: { fileSize: 1024 * 1024 * 1024 } });
  if (!part) return reply.code(400).send({ error: 'validation_failed', details: 'No file.' });
  const hash = createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  const key = `baseline/${randomBytes(16).toString('hex')}`;
  const body = pipeline(part.file, tap).then(() => undefined);
  const upload = new Upload({
    client,
    params: { Bucket: bucket, Key: key, Body: tap },
    partSize: 5 * 1024 * 1024,
    queueSize: 2,
  });
  await Promise.all([upload.done(), body]);
  return reply.code(201).send({ key, sha256: hash.digest('hex'), size });
});

app.get<{ Params: { key: string } }>('/files/:key', async (request, reply) => {
  const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: `baseline/${request.params.key}` }));
  void reply.header('content-length', String(answer.ContentLength)).type('application/octet-stream');
  return reply.send(answer.Body as Readable);
});

app.get('/health', () => ({ ok: true }));

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.send?.({ type: 'ready' });
