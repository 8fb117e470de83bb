/**
 * Assembly of the fragment document: the page's doctype, then each kept region with the start tags of
 * its ancestors, in page order, and end tags that close those ancestors where the next region is outside
 * them. The result is the page's own tree with every subtree that holds no kept part removed. Script
 * bodies are emptied and comments dropped in the kept regions (`prepare.ts`), `style` attributes are
 * left out everywhere (no reader looks at them; jsdom parses each one as CSS), as are the `data-*`
 * attributes no reader reads (`READ_DATA_ATTRIBUTES`), and so is whitespace next
 * to block tags (`withoutBlockWhitespace`).
 */
import type { ScannedElement } from './open-elements.js';
import { stripScriptsAndStyles, withoutBlockWhitespace } from './prepare.js';

/** The fragment document's HTML, and why it cannot stand for the page (null when it can). */
export interface AssembledFragments {
  html: string;
  inexact: string | null;
}

/**
 * Builds the fragment document of a page.
 * @param html the page
 * @param doctype the page's doctype (`<!DOCTYPE ...>`) or empty: the document gets the page's mode
 * @param regions the kept elements not inside another kept one, in page order (`FragmentScanner.regions`)
 * @param styles `[start, end)` pairs of every attribute left out (`style`, unread `data-*`), in page order
 */
export function assembleFragments(html: string, doctype: string, regions: readonly ScannedElement[], styles: readonly number[]): AssembledFragments {
  const slice = (start: number, end: number): string => withoutStyles(html, styles, start, end);
  let inexact: string | null = null;
  const out: string[] = [doctype];
  let open: ScannedElement[] = [];
  for (const r of regions) {
    const path: ScannedElement[] = [];
    for (let p = r.parent; p; p = p.parent) path.push(p);
    path.reverse();
    let k = 0;
    while (k < open.length && k < path.length && open[k] === path[k]) k++;
    for (let i = open.length - 1; i >= k; i--) out.push(`</${open[i]!.name}>`);
    for (let i = k; i < path.length; i++) {
      const a = path[i]!;
      // the region would sit inside text the rank-label search reads, or where the tree builder moves it
      if (a.candidate) inexact ??= `kept part inside a rank-label candidate <${a.name}> at ${a.start}`;
      if (a.taint === 2) inexact ??= `kept part inside a re-parented <${a.name}> at ${a.start}`;
      out.push(slice(a.start, a.tagEnd));
    }
    if (r.keep === 3) {
      // kept empty: its start tag, then the parts inside it; closed when the next part is outside it
      if (r.candidate) inexact ??= `rank-label candidate <${r.name}> kept empty at ${r.start}`;
      out.push(slice(r.start, r.tagEnd));
      open = [...path, r];
      continue;
    }
    open = path;
    out.push(stripScriptsAndStyles(slice(r.start, r.end)), r.closers);
  }
  for (let i = open.length - 1; i >= 0; i--) out.push(`</${open[i]!.name}>`);
  return { html: withoutBlockWhitespace(out.join('')), inexact };
}

/** The page from `start` to `end` without its `style` attributes (`styles`: sorted `[start, end)` pairs). */
function withoutStyles(html: string, styles: readonly number[], start: number, end: number): string {
  const st = styles;
  let lo = 0;
  let hi = st.length >> 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (st[2 * mid]! < start) lo = mid + 1;
    else hi = mid;
  }
  let out = '';
  let pos = start;
  for (let i = lo; i < st.length >> 1 && st[2 * i]! < end; i++) {
    out += html.slice(pos, st[2 * i]!);
    pos = Math.min(end, st[2 * i + 1]!);
  }
  return out + html.slice(pos, end);
}
