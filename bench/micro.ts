import { createSecretKey } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import jwt from 'jsonwebtoken';
import type { BenchConfig } from './config.js';
import { log } from './util.js';

/**
 * The argon2id cost of the bench users' hash: the service's (README: m = 19 MiB, t = 2, p = 1). A
 * login verifies with the stored hash's own parameters, so service and baseline pay the same.
 */
const ARGON2_OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export interface MicroResults {
  jwtVerifyKeyObjectUs: number;
  jwtVerifyStringUs: number;
  jwtVerifyBufferUs: number;
  jwtSignKeyObjectUs: number;
  argon2SingleMs: number;
  /** Best of concurrency 1, cores and 2 x cores: argon2id verify + HS256 sign, no HTTP, no database. */
  rawLoginPerSecond: number;
  rawLoginByConcurrency: Record<string, number>;
}

function timePerOp(fn: () => void, minMs: number, minOps: number): number {
  for (let i = 0; i < 200; i++) fn(); // warm-up (JIT, key caches)
  let ops = 0;
  const started = performance.now();
  while (ops < minOps || performance.now() - started < minMs) {
    for (let i = 0; i < 50; i++) fn();
    ops += 50;
  }
  return ((performance.now() - started) * 1000) / ops;
}

export async function runMicro(config: BenchConfig): Promise<MicroResults> {
  const keyObject = createSecretKey(Buffer.from(config.jwtSecret));
  const options = { algorithms: ['HS256' as const], issuer: config.issuer, audience: config.audience };
  const token = jwt.sign({ sub: 'b0000001-0000-4000-8000-000000000001', ver: 0 }, keyObject, {
    algorithm: 'HS256',
    issuer: config.issuer,
    audience: config.audience,
    expiresIn: 3600,
  });
  const check = (key: jwt.Secret) => () => {
    const claims = jwt.verify(token, key, options) as unknown as jwt.JwtPayload;
    if (claims.ver !== 0) throw new Error('bad token');
  };
  const jwtVerifyKeyObjectUs = timePerOp(check(keyObject), 1500, 5000);
  const jwtVerifyStringUs = timePerOp(check(config.jwtSecret), 1500, 500);
  const jwtVerifyBufferUs = timePerOp(check(Buffer.from(config.jwtSecret)), 1500, 500);
  const jwtSignKeyObjectUs = timePerOp(
    () =>
      jwt.sign({ sub: 'x', ver: 0 }, keyObject, {
        algorithm: 'HS256',
        issuer: config.issuer,
        audience: config.audience,
        expiresIn: 3600,
      }),
    1000,
    2000,
  );
  log(
    `JWT HS256 verify: KeyObject ${jwtVerifyKeyObjectUs.toFixed(1)} µs, string secret ${jwtVerifyStringUs.toFixed(1)} µs, ` +
      `Buffer secret ${jwtVerifyBufferUs.toFixed(1)} µs; sign (KeyObject) ${jwtSignKeyObjectUs.toFixed(1)} µs`,
  );

  const passwordHash = await hash(config.password, ARGON2_OPTIONS);
  const t0 = performance.now();
  for (let i = 0; i < 5; i++) await verify(passwordHash, config.password);
  const argon2SingleMs = (performance.now() - t0) / 5;
  const rawLoginByConcurrency: Record<string, number> = {};
  for (const concurrency of new Set([1, config.cores, config.cores * 2])) {
    const started = performance.now();
    let done = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() - started < 3000) {
          if (!(await verify(passwordHash, config.password))) throw new Error('argon2 verify failed');
          jwt.sign({ sub: 'x', ver: 0 }, keyObject, {
            algorithm: 'HS256',
            issuer: config.issuer,
            audience: config.audience,
            expiresIn: 3600,
          });
          done++;
        }
      }),
    );
    rawLoginByConcurrency[String(concurrency)] = done / ((performance.now() - started) / 1000);
  }
  const rawLoginPerSecond = Math.max(...Object.values(rawLoginByConcurrency));
  log(
    `argon2id verify (m=${ARGON2_OPTIONS.memoryCost}, t=${ARGON2_OPTIONS.timeCost}, p=${ARGON2_OPTIONS.parallelism}): ` +
      `${argon2SingleMs.toFixed(1)} ms single; raw verify+sign/s by concurrency ${JSON.stringify(
        Object.fromEntries(Object.entries(rawLoginByConcurrency).map(([k, v]) => [k, Math.round(v)])),
      )}`,
  );
  return {
    jwtVerifyKeyObjectUs,
    jwtVerifyStringUs,
    jwtVerifyBufferUs,
    jwtSignKeyObjectUs,
    argon2SingleMs,
    rawLoginPerSecond,
    rawLoginByConcurrency,
  };
}

export async function hashBenchPassword(config: BenchConfig): Promise<string> {
  return hash(config.password, ARGON2_OPTIONS);
}
