/**
 * The one XML writer of the CAS answers (docs/interface.md#cas-protocol): every CAS response and logoutRequest
 * is a tree of these nodes, rendered here, so no route ever concatenates markup. Text and attribute values are
 * escaped (XML 1.0 §2.4, §3.3.3), and characters XML 1.0 cannot carry at all (§2.2: most C0 controls, lone
 * surrogates, U+FFFE/U+FFFF) become U+FFFD, so a hostile display name yields a well-formed document.
 */

export interface XmlElement {
  readonly name: string;
  readonly attributes?: Readonly<Record<string, string>>;
  /** Child elements, or one text. */
  readonly children?: readonly XmlElement[] | string;
}

/** The element names and attribute names this writer emits: qualified names, never user input. */
const XML_NAME = /^[A-Za-z_][A-Za-z0-9._-]*(:[A-Za-z_][A-Za-z0-9._-]*)?$/;

// XML 1.0 §2.2 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
// eslint-disable-next-line no-control-regex
const NOT_XML_CHAR = /[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

const TEXT_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
const ATTRIBUTE_ESCAPES: Readonly<Record<string, string>> = {
  ...TEXT_ESCAPES,
  '"': '&quot;',
  "'": '&apos;',
  // Attribute-value normalization (§3.3.3) would turn these into spaces: keep them as they are.
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

/** Text content: `&`, `<`, `>` escaped (`>` too, so `]]>` never appears), non-characters replaced. */
export function escapeXmlText(text: string): string {
  return text.replace(NOT_XML_CHAR, '\ufffd').replace(/[&<>]/g, (c) => TEXT_ESCAPES[c] ?? c);
}

/** An attribute value in double quotes: also quotes and whitespace escaped. */
export function escapeXmlAttribute(value: string): string {
  return value.replace(NOT_XML_CHAR, '\ufffd').replace(/[&<>"'\t\n\r]/g, (c) => ATTRIBUTE_ESCAPES[c] ?? c);
}

function checkedName(name: string): string {
  if (!XML_NAME.test(name)) throw new Error(`not an XML name: ${JSON.stringify(name)}`);
  return name;
}

/** An element: `element('cas:user', {}, '10001')` or with child elements. */
export function element(
  name: string,
  attributes: Readonly<Record<string, string>> = {},
  children: readonly XmlElement[] | string = [],
): XmlElement {
  return { name, attributes, children };
}

function render(node: XmlElement, depth: number, out: string[]): void {
  const indent = '  '.repeat(depth);
  const attributes = Object.entries(node.attributes ?? {})
    .map(([name, value]) => ` ${checkedName(name)}="${escapeXmlAttribute(value)}"`)
    .join('');
  const name = checkedName(node.name);
  const children = node.children ?? [];
  if (typeof children === 'string') {
    out.push(`${indent}<${name}${attributes}>${escapeXmlText(children)}</${name}>`);
  } else if (children.length === 0) {
    out.push(`${indent}<${name}${attributes}/>`);
  } else {
    out.push(`${indent}<${name}${attributes}>`);
    for (const child of children) render(child, depth + 1, out);
    out.push(`${indent}</${name}>`);
  }
}

/** The element as an indented document fragment, one element per line (no XML declaration). */
export function renderXml(root: XmlElement): string {
  const out: string[] = [];
  render(root, 0, out);
  return `${out.join('\n')}\n`;
}
