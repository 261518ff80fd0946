import type { ContentVersion } from '../documents/document-files.service.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ESCAPES[char]);
}

/** Whether the client asks for an HTML page (a browser following the link), not the file. */
export function wantsHtml(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((part) => part.trim().toLowerCase().startsWith('text/html'));
}

/** The small page a browser gets: what the link holds and a link to download it (no script, no style). */
export function sharePage({ document, version }: ContentVersion): string {
  const title = escapeHtml(document.title);
  const fileName = escapeHtml(version.fileName);
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex, nofollow">' +
    `<meta name="viewport" content="width=device-width"><title>${title}</title></head><body>` +
    `<h1>${title}</h1><p>${fileName} (${version.fileSize} bytes, ${escapeHtml(version.mimeType)})</p>` +
    '<p><a href="?download=true" rel="nofollow">Download</a></p></body></html>'
  );
}
