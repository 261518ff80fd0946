import { afterAll, beforeAll } from 'vitest';
import type { DatabaseKind } from './databases.js';
import { createTestApp, type TestApp } from './test-app.js';
import { sendMultipart, type Part } from './uploads.js';

/** The app, logins and request helpers the document file suites share (one app per suite, on one storage driver). */
export class DocumentFilesSuite {
  t!: TestApp;
  readonly tokens: Record<string, string> = {};
  projectId = '';
  typeId = '';

  constructor(kind: DatabaseKind, driver: string) {
    beforeAll(async () => {
      this.t = await createTestApp(kind, { STORAGE_DRIVER: driver });
      for (const name of ['admin', 'alice', 'bob', 'erin']) this.tokens[name] = await this.t.login(name);
      this.projectId = this.t.seed.projects[0].id;
      this.typeId = this.t.seed.documentTypes[0].id;
    });
    afterAll(async () => {
      await this.t?.close();
    });
  }

  readonly url = (path: string): string => `${this.t.url}${path}`;
  readonly auth = (token: string) => ({ authorization: `Bearer ${token}` });
  readonly get = (path: string, token: string, headers: Record<string, string> = {}) =>
    fetch(this.url(path), { headers: { ...this.auth(token), ...headers } });
  readonly create = (token: string, fields: Part[], file: Part, headers: Record<string, string> = {}) =>
    sendMultipart(this.url('/api/documents'), token, [...fields, file], headers);
  readonly fileOf = (name: string, bytes: Buffer | string, type?: string): Part => ({
    name: 'file',
    fileName: name,
    bytes,
    type,
  });
  readonly basics = (project = this.projectId): Part[] => [
    { name: 'projectId', value: project },
    { name: 'documentTypeId', value: this.typeId },
  ];
  readonly addVersion = (id: string, token: string, parts: Part[], headers: Record<string, string> = {}) =>
    sendMultipart(this.url(`/api/documents/${id}/versions`), token, parts, headers);
}
