/**
 * The fixed ids of the demo data (`npm run demo`, `npm run seed`), so that the OpenAPI examples
 * name rows that exist and Swagger UI's "Try it out" works as shown.
 */
export const DEMO_IDS = {
  users: {
    admin: '0d3e5f70-1a2b-4c3d-8e4f-000000000001',
    alice: '0d3e5f70-1a2b-4c3d-8e4f-000000000002',
    bob: '0d3e5f70-1a2b-4c3d-8e4f-000000000003',
    erin: '0d3e5f70-1a2b-4c3d-8e4f-000000000004',
  },
  projects: { apollo: '1e4f6a81-2b3c-4d4e-9f50-000000000001', hermes: '1e4f6a81-2b3c-4d4e-9f50-000000000002' },
  documentTypes: {
    contract: '2f5a7b92-3c4d-4e5f-a061-000000000001',
    specification: '2f5a7b92-3c4d-4e5f-a061-000000000002',
  },
  /** Eight documents: 1-3 uploaded by alice, 4-6 by bob, 7-8 by admin. */
  documents: Array.from({ length: 8 }, (_, index) => demoId('3a6b8ca3-4d5e-4f60-b172', index + 1)),
  /** The `user` role (a migration creates the default roles with fixed ids). */
  userRole: '3f7c3a52-6b1e-4c8e-9a57-0c1d4e0a0003',
} as const;

/** The n-th demo notification's id (n from 1). */
export const demoNotificationId = (n: number): string => demoId('4b7c9db4-5e6f-4a71-8283', n);

function demoId(prefix: string, n: number): string {
  return `${prefix}-${n.toString(16).padStart(12, '0')}`;
}

/** Example ids for Swagger: alice's first document and the rows around it. */
export const DEMO_EXAMPLE = {
  documentId: DEMO_IDS.documents[0],
  projectId: DEMO_IDS.projects.apollo,
  documentTypeId: DEMO_IDS.documentTypes.contract,
  userId: DEMO_IDS.users.bob,
  roleId: DEMO_IDS.userRole,
  notificationId: demoNotificationId(1),
} as const;
