import { describe, expect, it } from 'vitest';
import { notificationText } from './notification-texts.js';

const shareAccessed = (payload: Record<string, unknown>) =>
  notificationText({ type: 'share.accessed', actorName: 'Someone', documentTitle: 'Plan', projectName: null, payload });

describe('notificationText: share.accessed', () => {
  it('tells of one download', () => {
    expect(shareAccessed({ downloads: 1 }).message).toBe(
      'Someone downloaded the document "Plan" through a share link you made.',
    );
    expect(shareAccessed({}).message).toBe('Someone downloaded the document "Plan" through a share link you made.');
  });

  it('tells of a burst of downloads counted together in one event', () => {
    expect(shareAccessed({ downloads: 4 })).toEqual({
      subject: 'Your share link of "Plan" was used',
      message: 'The document "Plan" was downloaded 4 times through a share link you made.',
    });
  });
});
