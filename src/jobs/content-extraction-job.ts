/** The job kind of a version's extraction (queued by documents with the version, run by ContentWorker). */
export const CONTENT_EXTRACTION_JOB = 'content.extract';

export interface ContentExtractionPayload {
  documentId: string;
  version: number;
}

/** The job subject of a version: jobs are found by it. */
export function contentJobSubject(documentId: string, version: number): string {
  return `${documentId}:${version}`;
}
