/**
 * Builds a jsdom document's element tree from parse5's own tree, each subtree before it is attached.
 *
 * jsdom's HTML parser inserts every node into the connected document as parse5 creates it, top-down,
 * and each insertion walks the new node's ancestors several times (pre-insert validity, memoized-query
 * invalidation, mutation-observer lookup, the window's named-property check): on a product page's
 * fragment document (hundreds of nodes, fifteen levels deep on average) those walks are a large share of
 * the build. Here parse5 builds its plain tree (same parser, same options as jsdom's DOMParser: scripting
 * disabled), then the jsdom nodes are made with jsdom's own element factory and attribute setter (what
 * its parser adapter calls) and appended child-first, so every insertion is into a parent that is not
 * attached anywhere yet; the finished `<html>` element then replaces the document's own, attaching every
 * node once (ids indexed, as jsdom's parser does).
 *
 * One known difference, in the direction of the HTML standard: jsdom's parser adapter appends text that
 * the tree builder foster-parents out of a table (`<table>:<tr>`) at the end of the table's parent
 * instead of before the table; parse5's tree, and this build, put it before the table.
 *
 * jsdom's internals used (`jsdom/lib/jsdom/...`, jsdom 27): `helpers/create-element`, `attributes`,
 * `generated/Text`, `generated/utils`, and the node implementation's `_append`/`_replace`. They are what
 * jsdom's parser adapter uses; a jsdom upgrade that moves them fails the parser tests at once.
 */
import { createRequire } from 'node:module';
import { parse, type DefaultTreeAdapterMap } from 'parse5';

type P5Element = DefaultTreeAdapterMap['element'];
type P5Node = DefaultTreeAdapterMap['childNode'];

/** jsdom's node implementation, as far as this module uses it. */
interface NodeImpl {
  _append(node: NodeImpl): void;
  _insert(node: NodeImpl, before: NodeImpl | null): void;
  _replace(node: NodeImpl, child: NodeImpl): void;
  documentElement?: NodeImpl | null;
  _globalObject?: unknown;
  _parserInserted?: boolean;
  /** The document's mode (`no-quirks`, `limited-quirks`, `quirks`), as jsdom's parser adapter sets it. */
  _mode?: string;
}

interface JsdomInternals {
  createElement(doc: NodeImpl, localName: string, namespace: string, prefix: null, isValue: string | null, sync: boolean): NodeImpl;
  setAttributeValue(el: NodeImpl, localName: string, value: string, prefix: string | null, namespace: string | null): void;
  createText(globalObject: unknown, doc: NodeImpl, data: string): NodeImpl;
  createDoctype(globalObject: unknown, doc: NodeImpl, name: string, publicId: string, systemId: string): NodeImpl;
  implForWrapper(doc: Document): NodeImpl;
  wrapperForImpl(impl: NodeImpl): Element;
  /** Removes an element's id and name from its window's named-property table (what detaching it does there). */
  elementDetached(el: NodeImpl): void;
}

const require = createRequire(import.meta.url);

function loadInternals(): JsdomInternals {
  const root = require.resolve('jsdom').replace(/api\.js$/, 'jsdom/living/');
  const { createElement } = require(`${root}helpers/create-element.js`) as Pick<JsdomInternals, 'createElement'>;
  const { setAttributeValue } = require(`${root}attributes.js`) as Pick<JsdomInternals, 'setAttributeValue'>;
  const Text = require(`${root}generated/Text.js`) as { createImpl(g: unknown, args: unknown[], priv: object): NodeImpl };
  const DocumentType = require(`${root}generated/DocumentType.js`) as { createImpl(g: unknown, args: unknown[], priv: object): NodeImpl };
  const { implForWrapper, wrapperForImpl } = require(`${root}generated/utils.js`) as Pick<JsdomInternals, 'implForWrapper' | 'wrapperForImpl'>;
  const { elementDetached } = require(`${root}window-properties.js`) as Pick<JsdomInternals, 'elementDetached'>;
  return {
    elementDetached,
    createElement,
    setAttributeValue,
    createText: (globalObject, doc, data) => Text.createImpl(globalObject, [], { data, ownerDocument: doc }),
    createDoctype: (globalObject, doc, name, publicId, systemId) =>
      DocumentType.createImpl(globalObject, [], { name, publicId, systemId, ownerDocument: doc }),
    implForWrapper,
    wrapperForImpl,
  };
}

let internals: JsdomInternals | null = null;

/** True when the tree holds an element this build does not make (template contents live in another document). */
function hasTemplate(html: string): boolean {
  return /<template[\s>/]/i.test(html);
}

/** The elements of a built document in tree order, and each one's id (empty when it has none). */
export interface BuiltElements {
  elements: Element[];
  ids: string[];
  /**
   * The elements with an `id` or `name` attribute: the ones attaching registered in the factory window's
   * named-property table (`forgetNamed`).
   */
  named: unknown[];
}

/** A jsdom element for a parse5 element, with its attributes, not yet attached; listed in `out` (tree order). */
function makeElement(j: JsdomInternals, doc: NodeImpl, n: P5Element, out: BuiltElements): NodeImpl {
  let isValue: string | null = null;
  let id = '';
  let named = false;
  for (const a of n.attrs) {
    if (a.namespace) continue;
    if (a.name === 'is') isValue = a.value;
    else if (a.name === 'id') id = a.value;
    if (a.name === 'id' || a.name === 'name') named = true;
  }
  const el = j.createElement(doc, n.tagName, n.namespaceURI, null, isValue, false);
  for (const a of n.attrs) j.setAttributeValue(el, a.name, a.value, a.prefix || null, a.namespace ?? null);
  if ('_parserInserted' in el) el._parserInserted = true;
  out.elements.push(j.wrapperForImpl(el));
  out.ids.push(id);
  if (named) out.named.push(el);
  return el;
}

/** The jsdom subtree of a parse5 element: children made and appended before their parent is (no recursion: pages nest deep). */
function buildSubtree(j: JsdomInternals, doc: NodeImpl, root: P5Element, out: BuiltElements): NodeImpl {
  const globalObject = doc._globalObject;
  const frames: { node: P5Element; impl: NodeImpl; next: number }[] = [{ node: root, impl: makeElement(j, doc, root, out), next: 0 }];
  for (;;) {
    const f = frames[frames.length - 1]!;
    const kids: P5Node[] = f.node.childNodes;
    if (f.next < kids.length) {
      const c = kids[f.next++]!;
      if (c.nodeName === '#text') f.impl._append(j.createText(globalObject, doc, (c as DefaultTreeAdapterMap['textNode']).value));
      else if (c.nodeName !== '#comment' && 'tagName' in c) frames.push({ node: c, impl: makeElement(j, doc, c, out), next: 0 });
      continue;
    }
    frames.pop();
    if (frames.length === 0) return f.impl;
    frames[frames.length - 1]!.impl._append(f.impl);
  }
}

/**
 * Fills `doc` (an empty jsdom document from `DOMParser`) with the tree of `html`: its doctype node, its
 * mode and its elements and text. Comments are not carried over (no reader looks at them).
 * @returns the document's elements in tree order with their ids, or null when `html` holds markup this
 *   build leaves to jsdom's parser (`<template>`); `doc` is untouched then
 */
export function buildInto(doc: Document, html: string): BuiltElements | null {
  if (hasTemplate(html)) return null;
  const j = (internals ??= loadInternals());
  const tree = parse(html, { scriptingEnabled: false });
  const root = tree.childNodes.find((c): c is P5Element => 'tagName' in c && c.tagName === 'html');
  const docImpl = j.implForWrapper(doc);
  const current = docImpl.documentElement;
  if (!root || !current) return null;
  // the doctype node and the mode, as jsdom's parser sets them (its `compatMode` looks at the doctype node)
  const dt = tree.childNodes.find((c): c is DefaultTreeAdapterMap['documentType'] => c.nodeName === '#documentType');
  if (dt) docImpl._insert(j.createDoctype(docImpl._globalObject, docImpl, dt.name, dt.publicId, dt.systemId), current);
  docImpl._mode = tree.mode;
  const out: BuiltElements = { elements: [], ids: [], named: [] };
  docImpl._replace(buildSubtree(j, docImpl, root, out), current);
  return out;
}

/**
 * Cuts what ties a built document to the window that made it: the named-property table entries of its
 * elements (every other reference is the document's own). The tree itself stays as it is; detaching
 * every node instead costs a walk over all of them.
 * @param named `BuiltElements.named` of the document
 */
export function forgetNamed(named: readonly unknown[]): void {
  const j = (internals ??= loadInternals());
  for (const el of named) j.elementDetached(el as NodeImpl);
}
