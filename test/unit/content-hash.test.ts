/**
 * The pure SHA-256 and content hash of core/domain/content-hash.ts against Node's own SHA-256.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contentHash, sha256Hex } from '../../core/domain/content-hash.js';

const node = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('sha256Hex', () => {
  it('equals Node\'s SHA-256 for empty, ASCII, multi-byte, astral and block-boundary texts', () => {
    const texts = ['', 'abc', 'ä€𝄞 日本語', 'a'.repeat(55), 'a'.repeat(56), 'b'.repeat(64), 'c'.repeat(119), 'd'.repeat(1000), '\u0000\u007f'];
    for (const text of texts) expect(sha256Hex(text), JSON.stringify(text.slice(0, 10))).toBe(node(text));
  });

  it('hashes a lone surrogate as U+FFFD, as UTF-8 encoders do', () => {
    expect(sha256Hex('a\uD800b')).toBe(node('a\uFFFDb'));
  });
});

describe('contentHash', () => {
  const fields = { title: 'Kettle', feature_bullets: ['1.7 l', 'steel'], images: ['https://m.media-amazon.com/images/I/1.jpg'] };

  it('is the SHA-256 of the JSON of title, bullets and images', () => {
    expect(contentHash(fields)).toBe(node(JSON.stringify(['Kettle', ['1.7 l', 'steel'], ['https://m.media-amazon.com/images/I/1.jpg']])));
  });

  it('ignores runs of white space; sees wording, order and images', () => {
    expect(contentHash({ ...fields, title: ' Kettle \n' })).toBe(contentHash(fields));
    expect(contentHash({ ...fields, feature_bullets: ['steel', '1.7 l'] })).not.toBe(contentHash(fields));
    expect(contentHash({ ...fields, images: [] })).not.toBe(contentHash(fields));
  });

  it('is null when nothing of the content was read', () => {
    expect(contentHash({ title: null, feature_bullets: [], images: [] })).toBeNull();
    expect(contentHash({ title: '  ', feature_bullets: [], images: [] })).toBeNull();
  });
});
