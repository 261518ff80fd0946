import { decodeKeysetCursor, encodeKeysetCursor } from '../common/pagination/keyset-cursor.js';

/** A position in the newest-first order: the (createdAt, id) of the last item a client has seen. */
export interface NotificationCursor {
  createdAt: Date;
  id: string;
}

export function encodeCursor(cursor: NotificationCursor): string {
  return encodeKeysetCursor({ at: cursor.createdAt, id: cursor.id });
}

export function decodeCursor(raw: string): NotificationCursor {
  const { at, id } = decodeKeysetCursor(raw);
  return { createdAt: at, id };
}
