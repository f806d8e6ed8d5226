/**
 * Reads the repeated records of an XML list one at a time with saxes (a strict, streaming parser), so
 * memory holds one record's elements rather than a tree of the whole document.
 */
import { SaxesParser } from 'saxes';

/** One element of a record: local name (prefix dropped), attributes, child elements and its own text. */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/** Which document an importer expects: the root element's local name(s) and the repeated record element. */
export interface XmlListShape {
  /** The file kind, for error messages ("EU financial sanctions list XML"). */
  what: string;
  roots: readonly string[];
  record: string;
}

/** What the document said around its records. */
export interface XmlListHeader {
  root: string;
  rootAttributes: Record<string, string>;
  /** Text of the root's childless elements that are not records, such as a generation date. */
  fields: Record<string, string>;
  records: number;
}

/*
 * Bounds, so a hostile or broken file ends with an error instead of exhausting memory: the official
 * records are a few levels deep and hold at most some hundreds of elements.
 */
const MAX_DEPTH = 32;
const MAX_RECORD_ELEMENTS = 20_000;
const MAX_FIELD_TEXT = 200;

class XmlSyntaxError extends Error {}

function localName(qualified: string): string {
  return qualified.slice(qualified.indexOf(':') + 1);
}

/**
 * Parses `text` and calls `onRecord` with each direct child of the root named `shape.record`. Throws an
 * Error naming `shape.what` when the text is not well-formed XML, has a DOCTYPE, has another root, nests
 * too deeply or holds no record. Errors thrown by `onRecord` pass through unchanged.
 */
export function readXmlRecords(text: string, shape: XmlListShape, onRecord: (record: XmlElement) => void): XmlListHeader {
  const { what } = shape;
  const parser = new SaxesParser({ xmlns: false });
  const header: XmlListHeader = { root: '', rootAttributes: {}, fields: {}, records: 0 };
  let depth = 0;
  let elements = 0;
  const open: XmlElement[] = [];

  parser.on('error', (err) => {
    throw new XmlSyntaxError(err.message);
  });
  // saxes never expands entities a DTD declares, but no published list has a DTD, so one is refused outright.
  parser.on('doctype', () => {
    throw new Error(`${what}: the document has a DOCTYPE, which the published file does not; refused`);
  });
  parser.on('opentag', (tag) => {
    depth += 1;
    if (depth > MAX_DEPTH) throw new Error(`${what}: elements nest deeper than ${MAX_DEPTH} levels`);
    const name = localName(tag.name);
    if (depth === 1) {
      if (!shape.roots.includes(name)) {
        throw new Error(`${what}: the root element is <${name}>, not <${shape.roots.join('> or <')}>`);
      }
      header.root = name;
      header.rootAttributes = { ...tag.attributes };
      return;
    }
    const element: XmlElement = { name, attributes: { ...tag.attributes }, children: [], text: '' };
    if (depth === 2) {
      elements = 0;
    } else {
      open[open.length - 1]?.children.push(element);
    }
    elements += 1;
    if (elements > MAX_RECORD_ELEMENTS) throw new Error(`${what}: one <${open[0]?.name}> holds more than ${MAX_RECORD_ELEMENTS} elements`);
    open.push(element);
  });
  const addText = (t: string): void => {
    const top = open[open.length - 1];
    if (top) top.text += t;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    depth -= 1;
    const element = open.pop();
    if (!element || open.length > 0) return;
    if (element.name === shape.record) {
      header.records += 1;
      onRecord(element);
    } else if (element.children.length === 0) {
      header.fields[element.name] = element.text.trim().slice(0, MAX_FIELD_TEXT);
    }
  });

  try {
    parser.write(text).close();
  } catch (err) {
    if (err instanceof XmlSyntaxError) throw new Error(`${what}: not well-formed XML (${err.message})`);
    throw err;
  }
  if (!header.root) throw new Error(`${what}: no root element`);
  if (header.records === 0) throw new Error(`${what}: no <${shape.record}> element under <${header.root}>`);
  return header;
}

/** The direct children of `element` with this local name. */
export function childrenNamed(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((c) => c.name === name);
}

/** The trimmed text of the first direct child with this local name, or '' when there is none. */
export function childText(element: XmlElement, name: string): string {
  return element.children.find((c) => c.name === name)?.text.trim() ?? '';
}

/** Every element with this local name below `element`, at any depth, in document order. */
export function descendantsNamed(element: XmlElement, name: string): XmlElement[] {
  const found: XmlElement[] = [];
  const walk = (e: XmlElement): void => {
    for (const c of e.children) {
      if (c.name === name) found.push(c);
      walk(c);
    }
  };
  walk(element);
  return found;
}
