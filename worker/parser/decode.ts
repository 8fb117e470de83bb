/** Decoding raw page bytes into a string, honouring the declared charset. */
import iconv from 'iconv-lite';

const SNIFF_BYTES = 16_384;

function charsetOf(s: string | undefined): string | null {
  const m = /charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(s ?? '');
  return m ? m[1]!.toLowerCase() : null;
}

/** The charset a `<meta charset>` / `<meta http-equiv="content-type">` declares in the first bytes, or null. */
function metaCharset(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, SNIFF_BYTES)).toString('latin1');
  for (const m of head.matchAll(/<meta\b[^>]*>/gi)) {
    const tag = m[0];
    const direct = /\bcharset\s*=\s*["']?\s*([\w.:-]+)/i.exec(tag);
    if (direct) return direct[1]!.toLowerCase();
  }
  return null;
}

function isUtf8(name: string): boolean {
  return name === 'utf-8' || name === 'utf8';
}

/**
 * Decodes page bytes: charset of the Content-Type header, else a meta charset in the first 16 KB, else UTF-8.
 * Pages declared (or defaulted to) UTF-8 that are not valid UTF-8 are read as windows-1252 (old pages do this).
 */
export function decodePage(bytes: Uint8Array, contentType?: string): string {
  let charset = charsetOf(contentType) ?? metaCharset(bytes) ?? 'utf-8';
  if (!iconv.encodingExists(charset)) charset = 'utf-8';
  if (isUtf8(charset)) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\ufeff/, '');
    } catch {
      return iconv.decode(Buffer.from(bytes), 'windows-1252');
    }
  }
  return iconv.decode(Buffer.from(bytes), charset);
}
