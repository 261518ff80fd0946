import { describe, expect, it } from 'vitest';
import { detectMediaType, FALLBACK_MEDIA_TYPE, normalizeMediaType, textWithByteOrderMark } from './media-type.js';

// A complete 1×1 PNG and the start of a PDF: real magic numbers, not stand-ins.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n');
const TEXT = Buffer.from('Minutes of the meeting, 3 March.\n');

describe('detectMediaType', () => {
  it.each<[string, Buffer, string | undefined, string]>([
    ['recognised bytes win over a declared type', PNG, 'text/plain', 'image/png'],
    ['recognised bytes without a declared type', PDF, undefined, 'application/pdf'],
    ['recognised bytes over a bogus declared type', PDF, 'not a type', 'application/pdf'],
    ['unrecognised bytes keep a valid declared type', TEXT, 'text/plain', 'text/plain'],
    ['the declared type is lower-cased', TEXT, 'Text/CSV', 'text/csv'],
    ['declared parameters are dropped', TEXT, 'text/plain; charset=utf-8', 'text/plain'],
    ['a structured suffix is valid syntax', TEXT, 'application/vnd.example+json', 'application/vnd.example+json'],
    ['a declared PNG that is not one is not trusted', TEXT, 'image/png', FALLBACK_MEDIA_TYPE],
    ['a declared PDF that is not one is not trusted', TEXT, 'application/pdf', FALLBACK_MEDIA_TYPE],
    ['no declared type', TEXT, undefined, FALLBACK_MEDIA_TYPE],
    ['an empty file', Buffer.alloc(0), 'text/plain', 'text/plain'],
  ])('%s', async (_case, head, declared, expected) => {
    await expect(detectMediaType(head, declared)).resolves.toBe(expected);
  });

  it('detects from the head of a larger file', async () => {
    const head = Buffer.concat([PNG, Buffer.alloc(4100 - PNG.length)]);
    await expect(detectMediaType(head, 'application/octet-stream')).resolves.toBe('image/png');
  });
});

describe('normalizeMediaType (RFC 6838 syntax)', () => {
  it.each<[string | undefined, string | undefined]>([
    ['text/plain', 'text/plain'],
    ['IMAGE/PNG', 'image/png'],
    [' text/plain ', 'text/plain'],
    ['application/vnd.ms-excel', 'application/vnd.ms-excel'],
    [`x/${'a'.repeat(127)}`, `x/${'a'.repeat(127)}`],
    [`x/${'a'.repeat(128)}`, undefined],
    [undefined, undefined],
    ['', undefined],
    ['text', undefined],
    ['text/', undefined],
    ['/plain', undefined],
    ['text/plain/extra', undefined],
    ['text /plain', undefined],
    ['te xt/plain', undefined],
    ['-text/plain', undefined],
    ['text/pla"in', undefined],
    ['text/plain\r\nX-Evil: 1', undefined],
    ['*/*', undefined],
    ['tëxt/plain', undefined],
  ])('%j', (value, expected) => {
    expect(normalizeMediaType(value)).toBe(expected);
  });
});

describe('text with a byte order mark', () => {
  const utf16le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);

  it('is text/plain, not the audio/mpeg file-type takes a UTF-16LE mark for', async () => {
    await expect(detectMediaType(utf16le('Quarterly report: revenue grew.\r\n'))).resolves.toBe('text/plain');
    await expect(detectMediaType(utf16le('a,b\n1,2\n'), 'text/csv; charset=utf-16')).resolves.toBe('text/csv');
    await expect(
      detectMediaType(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('hi', 'utf16le').swap16()])),
    ).resolves.toBe('text/plain');
  });

  it('is not text when binary follows the mark', () => {
    expect(textWithByteOrderMark(Buffer.from([0xff, 0xfe, 0x00, 0x00, 0x01, 0x00]))).toBe(false);
    expect(textWithByteOrderMark(Buffer.from('plain'))).toBe(false);
  });
});
