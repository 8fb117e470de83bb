/**
 * What the HTML tree builder does with each start and end tag, followed closely enough for Amazon pages:
 * void elements, end tags closing open elements up to their match (never across a block that the end
 * tag cannot close), optional end tags (`p`, `li`, `dd`/`dt`, `option`, table parts), ignored stray
 * table tags, `select` content, nested forms, inline SVG/MathML, misnested formatting elements
 * (adoption agency). Where the page does something this model does not follow, `inexact` says so.
 */
import { OpenElements, type ScannedElement as El } from './open-elements.js';
import {
  BUTTON_SCOPE, CELLS, CLOSES_P, FOREIGN_BREAKOUT, FOREIGN_ROOTS, FORMATTING, HEADINGS, HIDDEN_TEXT, LIST_SCOPE, MARKERS,
  NO_RECONSTRUCT, SCOPE, SELECT_CLOSERS, SPECIAL, TABLE_CONTEXT, TABLE_ONLY, TABLE_PARTS, TABLE_SCOPE, TABLE_SECTIONS, TR, VOID,
} from './tag-categories.js';

/** Tree construction over `OpenElements`; subclasses say what an element's closing means (`closed`). */
export abstract class TreeConstruction extends OpenElements {
  /** Inside a `script` or `style` element (its text is no part of any field). */
  protected hiddenText = false;
  /** The form element pointer: a second `<form>` is ignored while it is set. */
  private form: El | null = null;
  /** Open inline SVG/MathML roots. */
  protected foreign = 0;
  /** Quirks mode (no doctype, or an old one): `<table>` does not close an open `<p>`. */
  protected quirks = true;

  /** An element closed (its `end` set); `closers`: what it left open, as `close` says. */
  protected abstract closed(el: El, closers: number): void;

  protected close(el: El, end: number, closers: number): void {
    el.end = end;
    if (HIDDEN_TEXT.has(el.name)) this.hiddenText = false;
    if (FOREIGN_ROOTS.has(el.name)) this.foreign--;
    if (MARKERS.has(el.name)) {
      // leaving a cell (or object...) clears the formatting elements opened inside it
      const m = this.active.lastIndexOf(null);
      if (m >= 0) this.active.length = m;
    }
    this.closed(el, closers);
  }

  /**
   * Implied end tags and ignored start tags before a start tag is inserted.
   * @returns false when the tree builder ignores this start tag.
   */
  protected beforeStartTag(name: string, lt: number): boolean {
    const stack = this.stack;
    if (this.foreign > 0) {
      if (!FOREIGN_BREAKOUT.has(name)) return true;
      const f = this.indexOf(FOREIGN_ROOTS);
      if (f >= 0) this.popTo(f, lt, -1);
    }
    // select content: only options (and a few others) are elements there
    const sel = this.inScope('select', TABLE_SCOPE);
    if (sel >= 0) {
      const cur = this.top()!.name;
      if (name === 'option') {
        if (cur === 'option') this.popTo(stack.length - 1, lt, -1);
        return true;
      }
      if (name === 'optgroup' || name === 'hr') {
        if (this.top()!.name === 'option') this.popTo(stack.length - 1, lt, -1);
        if (this.top()!.name === 'optgroup') this.popTo(stack.length - 1, lt, -1);
        return true;
      }
      if (name === 'select' || name === 'input' || name === 'keygen' || name === 'textarea') {
        this.popTo(sel, lt, -1);
        return name !== 'select';
      }
      if (SELECT_CLOSERS.has(name) && this.inScope('table', TABLE_SCOPE) >= 0) {
        this.popTo(sel, lt, -1);
      } else if (name !== 'script' && name !== 'template') {
        return false;
      }
    }
    if (name === 'html' || name === 'body' || name === 'head') {
      if (stack.some((e) => e.name === name)) return false;
      if (name === 'head' && stack.some((e) => e.name === 'body')) return false;
      if (name === 'body') {
        const head = stack.findIndex((e) => e.name === 'head');
        if (head >= 0) this.popTo(head, lt, -1);
      }
      return true;
    }
    if (name === 'frame') return false;
    if (TABLE_ONLY.has(name)) {
      const table = this.isOpen('table') ? this.indexOf(TABLE_SCOPE) : -1;
      if (table < 0 || stack[table]!.name !== 'table') return false;
      if (name === 'tr') {
        const sec = this.indexOf(TABLE_SECTIONS);
        this.popAbove(sec > table ? sec : table, lt);
      } else if (name === 'td' || name === 'th') {
        const tr = this.indexOf(TR);
        this.popAbove(tr > table ? tr : table, lt);
      } else {
        this.popAbove(table, lt);
      }
      return true;
    }
    if (name === 'table' && this.isOpen('table')) {
      // a table directly in a table (not in a cell) closes the open one
      const table = this.indexOf(TABLE_SCOPE);
      const cell = this.indexOf(CELLS);
      if (table >= 0 && stack[table]!.name === 'table' && cell < table) this.popTo(table, lt, -1);
    }
    if (name === 'form' && this.form) return false;
    if ((name === 'li' && this.isOpen('li')) || ((name === 'dd' || name === 'dt') && (this.isOpen('dd') || this.isOpen('dt')))) {
      const match = name === 'li' ? ['li'] : ['dd', 'dt'];
      for (let i = stack.length - 1; i >= 0; i--) {
        const n = stack[i]!.name;
        if (match.includes(n)) {
          this.popTo(i, lt, -1);
          break;
        }
        if (SPECIAL.has(n) && n !== 'address' && n !== 'div' && n !== 'p') break;
      }
    }
    if (CLOSES_P.has(name) && this.isOpen('p') && !(name === 'table' && this.quirks)) {
      const p = this.inScope('p', BUTTON_SCOPE);
      if (p >= 0) this.popTo(p, lt, -1);
    }
    if (HEADINGS.has(name) && HEADINGS.has(this.top()?.name ?? '')) this.popTo(stack.length - 1, lt, -1);
    if (name === 'button') {
      const b = this.inScope('button', SCOPE);
      if (b >= 0) this.popTo(b, lt, -1);
    }
    if (name === 'a' || name === 'nobr') {
      const i = this.inScope(name, SCOPE);
      if (i >= 0) this.formattingEnd(i, lt, -1);
      else if (name === 'a') {
        // an `a` closed without its end tag (still active) is closed by a new one
        for (let j = this.active.length - 1; j >= 0 && this.active[j]; j--) {
          if (this.active[j]!.name === 'a') {
            this.active.splice(j, 1);
            break;
          }
        }
      }
    }
    if ((name === 'option' || name === 'optgroup') && this.top()?.name === 'option') this.popTo(stack.length - 1, lt, -1);
    if (this.active.length && !NO_RECONSTRUCT.has(name)) this.reconstructs(lt);
    return true;
  }

  /** True when the tree builder is in a table context (not in a cell) at the current node. */
  private tableMode(): boolean {
    const i = this.indexOf(TABLE_PARTS);
    return i >= 0 && TABLE_CONTEXT.has(this.stack[i]!.name) && i === this.stack.length - 1;
  }

  /**
   * Inserts an element whose start tag ends at `tagEnd`: void elements (and self-closing foreign ones)
   * close at once, a form directly in a table is inserted empty, anything else is opened.
   */
  protected insert(el: El, tagEnd: number, selfClosing: boolean): void {
    const name = el.name;
    if ((this.foreign > 0 && selfClosing) || VOID.has(name)) {
      this.close(el, tagEnd, 0);
      return;
    }
    if (name === 'form') {
      this.form = el;
      if (this.tableMode()) {
        this.close(el, tagEnd, 0);
        return;
      }
    }
    this.push(el);
    if (FORMATTING.has(name)) this.active.push(el);
    else if (MARKERS.has(name)) this.active.push(null);
    if (FOREIGN_ROOTS.has(name)) this.foreign++;
    if (HIDDEN_TEXT.has(name)) this.hiddenText = true;
  }


  protected endTag(name: string, lt: number, end: number): void {
    const stack = this.stack;
    if (name === 'br' || name === 'body' || name === 'html') return;
    if (this.foreign > 0) {
      for (let i = stack.length - 1; i >= 0; i--) {
        if (stack[i]!.name === name) return this.popTo(i, lt, end);
        if (stack[i]!.name === 'svg' || stack[i]!.name === 'math') break;
      }
    }
    const sel = this.inScope('select', TABLE_SCOPE);
    if (sel >= 0) {
      if (name === 'select') return this.popTo(sel, lt, end);
      if (name === 'option' && this.top()?.name === 'option') return this.popTo(stack.length - 1, lt, end);
      if (name === 'optgroup') {
        if (this.top()?.name === 'option' && stack[stack.length - 2]?.name === 'optgroup') this.popTo(stack.length - 1, lt, -1);
        if (this.top()?.name === 'optgroup') this.popTo(stack.length - 1, lt, end);
        return;
      }
      if (!SELECT_CLOSERS.has(name)) return;
      if (this.inScope(name, TABLE_SCOPE) < 0) return;
      this.popTo(sel, lt, -1);
    }
    if (name === 'form') {
      const f = this.form;
      this.form = null;
      if (!f) return;
      const i = stack.indexOf(f);
      if (i < 0) return;
      if (i === stack.length - 1) return this.popTo(i, lt, end);
      return this.removeAt(i, end, false);
    }
    if (HEADINGS.has(name)) {
      for (let i = stack.length - 1; i >= 0; i--) {
        const n = stack[i]!.name;
        if (HEADINGS.has(n)) return this.popTo(i, lt, n === name ? end : -1);
        if (SCOPE.has(n)) return;
      }
      return;
    }
    if (name === 'p') {
      const i = this.inScope('p', BUTTON_SCOPE);
      if (i >= 0) this.popTo(i, lt, end);
      return;
    }
    if (name === 'li') {
      const i = this.inScope('li', LIST_SCOPE);
      if (i >= 0) this.popTo(i, lt, end);
      return;
    }
    if (name === 'dd' || name === 'dt') {
      const i = this.inScope(name, SCOPE);
      if (i >= 0) this.popTo(i, lt, end);
      return;
    }
    if (TABLE_PARTS.has(name)) {
      const i = this.inScope(name, TABLE_SCOPE);
      if (i >= 0) this.popTo(i, lt, end);
      return;
    }
    if (FORMATTING.has(name)) {
      for (let i = stack.length - 1; i >= 0; i--) {
        const n = stack[i]!.name;
        if (n === name) return this.formattingEnd(i, lt, end);
        if (SCOPE.has(n)) return;
      }
      return;
    }
    for (let i = stack.length - 1; i >= 0; i--) {
      const n = stack[i]!.name;
      if (n === name) return this.popTo(i, lt, end);
      if (SPECIAL.has(n)) return;
    }
  }

  /** End of a formatting element at stack `index`: closes it, or (a block opened inside it) removes it. */
  private formattingEnd(index: number, lt: number, ownEnd: number): void {
    const stack = this.stack;
    let block = -1;
    for (let i = index + 1; i < stack.length; i++) {
      if (SPECIAL.has(stack[i]!.name)) {
        block = i;
        break;
      }
    }
    const fe = stack[index]!;
    if (block < 0) {
      this.popTo(index, lt, ownEnd);
      this.forget(fe);
      return;
    }
    // Adoption agency: the block moves out of the formatting element.
    this.removeAt(index, ownEnd >= 0 ? ownEnd : lt, true);
  }
}
