import { afterAll, afterEach } from 'vitest';
import { describeMismatches, takeResponseMismatches } from './openapi-response-validator.js';

/*
 * Vitest setup file of the e2e project: the responses a test provoked must match the OpenAPI
 * document (recorded by the hook test-app.ts installs). Failing in afterEach fails that test;
 * what beforeAll/afterAll provoked fails the file.
 */
function failOnMismatches(): void {
  const found = takeResponseMismatches();
  if (found.length) throw new Error(describeMismatches(found));
}

afterEach(failOnMismatches);
afterAll(failOnMismatches);
