import { describe, expect, it } from 'vitest';
import {
  contentDisposition,
  contentRange,
  entityTag,
  ifNoneMatchSatisfied,
  ifRangeAllowsRange,
  parseRange,
  type RangeRequest,
} from './content-response.js';

const whole: RangeRequest = { kind: 'whole' };
const unsatisfiable: RangeRequest = { kind: 'unsatisfiable' };
const partial = (start: number, end: number): RangeRequest => ({ kind: 'partial', start, end });

describe('parseRange', () => {
  it.each<[string | undefined, number, RangeRequest]>([
    // served ranges
    ['bytes=0-499', 1000, partial(0, 499)],
    ['bytes=500-999', 1000, partial(500, 999)],
    ['bytes=0-0', 1000, partial(0, 0)],
    ['bytes=999-999', 1000, partial(999, 999)],
    ['bytes=500-', 1000, partial(500, 999)],
    ['bytes=-1', 1000, partial(999, 999)],
    ['bytes=-500', 1000, partial(500, 999)],
    ['bytes=0-', 1, partial(0, 0)],
    // clamped
    ['bytes=500-5000', 1000, partial(500, 999)],
    ['bytes=-5000', 1000, partial(0, 999)],
    ['bytes=0-99999999999999999999999', 1000, partial(0, 999)],
    // case and whitespace (the unit is case-insensitive; OWS around the range)
    ['BYTES=1-2', 1000, partial(1, 2)],
    ['bytes= 1 - 2 ', 1000, partial(1, 2)],
    // unsatisfiable: 416
    ['bytes=1000-', 1000, unsatisfiable],
    ['bytes=1000-1001', 1000, unsatisfiable],
    ['bytes=99999999999999999999999-', 1000, unsatisfiable],
    ['bytes=-0', 1000, unsatisfiable],
    ['bytes=0-', 0, unsatisfiable],
    ['bytes=-5', 0, unsatisfiable],
    // ignored: whole file with 200
    [undefined, 1000, whole],
    ['', 1000, whole],
    ['bytes=', 1000, whole],
    ['bytes=-', 1000, whole],
    ['bytes=5-1', 1000, whole],
    ['bytes=a-b', 1000, whole],
    ['bytes=1.5-2', 1000, whole],
    ['bytes=+1-2', 1000, whole],
    ['bytes=--1', 1000, whole],
    ['bytes 0-1', 1000, whole],
    ['items=0-1', 1000, whole],
    ['bytes=0-1,5-6', 1000, whole],
    ['bytes=0-1, -1', 1000, whole],
    ['bytes=2000-3000,4000-5000', 1000, whole],
  ])('%j of %i bytes', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});

describe('contentRange', () => {
  it('describes a 206 and a 416', () => {
    expect(contentRange(partial(0, 0), 10)).toBe('bytes 0-0/10');
    expect(contentRange(partial(9, 9), 10)).toBe('bytes 9-9/10');
    expect(contentRange(unsatisfiable, 10)).toBe('bytes */10');
    expect(contentRange(whole, 10)).toBeUndefined();
  });
});

describe('ifNoneMatchSatisfied', () => {
  const sha = 'a'.repeat(64);
  const etag = entityTag(sha);

  it.each<[string | undefined, boolean]>([
    [undefined, false],
    [`"${sha}"`, true],
    [` "${sha}" `, true],
    [`W/"${sha}"`, true], // weak comparison
    [`"other", "${sha}"`, true],
    [`"other",W/"${sha}"`, true],
    ['*', true],
    [' * ', true],
    ['"other"', false],
    [`"${sha.toUpperCase()}"`, false],
    [sha, false], // not quoted: malformed
    [`"${sha}`, false],
    [`"${sha}" "other"`, false], // missing comma: malformed
    ['', false],
    [`"${sha}", *`, false], // * only stands alone
  ])('%j', (header, expected) => {
    expect(ifNoneMatchSatisfied(header, etag)).toBe(expected);
  });
});

describe('ifRangeAllowsRange', () => {
  const etag = entityTag('b'.repeat(64));

  it('applies Range without If-Range or with the current strong ETag only', () => {
    expect(ifRangeAllowsRange(undefined, etag)).toBe(true);
    expect(ifRangeAllowsRange(etag, etag)).toBe(true);
    expect(ifRangeAllowsRange(`W/${etag}`, etag)).toBe(false);
    expect(ifRangeAllowsRange('"other"', etag)).toBe(false);
    expect(ifRangeAllowsRange('Wed, 21 Oct 2015 07:28:00 GMT', etag)).toBe(false);
  });
});

describe('contentDisposition', () => {
  it.each<[string, string, string]>([
    ['report.pdf', 'report.pdf', 'report.pdf'],
    ['naïve café.txt', 'naive cafe.txt', 'na%C3%AFve%20caf%C3%A9.txt'],
    ['Übersicht Ωmega.pdf', 'Ubersicht _mega.pdf', '%C3%9Cbersicht%20%CE%A9mega.pdf'],
    ['報告書.docx', 'download.docx', '%E5%A0%B1%E5%91%8A%E6%9B%B8.docx'],
    ['emoji 😀.png', 'emoji _.png', 'emoji%20%F0%9F%98%80.png'],
    ['say "hi".txt', 'say _hi_.txt', 'say%20%22hi%22.txt'],
    ['back\\slash%20.txt', 'back_slash_20.txt', 'back%5Cslash%2520.txt'],
    ["it's (1)*.txt", "it's (1)*.txt", 'it%27s%20%281%29%2A.txt'],
    ['line\r\nSet-Cookie: x=1', 'line__Set-Cookie: x=1', 'line%0D%0ASet-Cookie%3A%20x%3D1'],
    ['tab\there;x.txt', 'tab_here;x.txt', 'tab%09here%3Bx.txt'],
    ['報告', 'download', '%E5%A0%B1%E5%91%8A'],
    ['.htaccess', '.htaccess', '.htaccess'],
    ['日本.語', 'download', '%E6%97%A5%E6%9C%AC.%E8%AA%9E'],
    ['***', '***', '%2A%2A%2A'],
  ])('%j', (fileName, ascii, encoded) => {
    expect(contentDisposition(fileName)).toBe(`attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`);
  });

  it('never lets CR, LF or an unescaped quote into the header, whatever the name', () => {
    const names = ['\r', '\n', '"', '\u2028', '\ud800', "a\"; filename*=UTF-8''evil", `${'x'.repeat(300)}"`];
    for (const name of names) {
      const header = contentDisposition(name);
      expect(header).not.toMatch(/[\r\n\u0080-\uffff]/);
      const quotedValue = /^attachment; filename="([^"]*)"; filename\*=UTF-8''([A-Za-z0-9!#$&+\-.^_`|~%]*)$/.exec(
        header,
      );
      expect(quotedValue, header).not.toBeNull();
    }
  });

  it('percent-encodes a lone surrogate as U+FFFD instead of throwing', () => {
    expect(contentDisposition('a\ud800b')).toBe(`attachment; filename="a_b"; filename*=UTF-8''a%EF%BF%BDb`);
  });
});
