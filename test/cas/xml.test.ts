/**
 * The one XML writer of the CAS answers (src/cas/xml.ts) and the answers built with it
 * (src/cas/responses.ts): well-formed whatever the text, checked by a real XML parser.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import {
  authenticationFailure,
  authenticationSuccess,
  logoutRequest,
  proxyFailure,
  validateAnswer,
} from '../../src/cas/responses.js';
import { element, escapeXmlAttribute, escapeXmlText, renderXml } from '../../src/cas/xml.js';

/** Names a hostile user might give themselves. */
const HOSTILE = [
  '</cas:user><cas:user>admin',
  ']]><x/>',
  'a & b < c > d',
  '"quoted" \'single\'',
  '<!-- comment --><?pi?>',
  '<!DOCTYPE x [<!ENTITY e "boom">]>&e;',
  'nul\u0000bell\u0007 esc\u001b',
  'lone \ud800 surrogate',
  '\ufffe\uffff',
  'tab\tnew\nline\rreturn',
  '张三 🎓',
];

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  trimValues: false,
  processEntities: true,
  isArray: (name) => name === 'cas:groups' || name === 'cas:name',
});

/** For documents whose values have no surrounding whitespace: indentation is not read as text. */
const trimmingParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  isArray: (name) => name === 'cas:groups' || name === 'cas:name',
});

function wellFormed(xml: string): void {
  expect(XMLValidator.validate(xml)).toBe(true);
}

describe('the XML writer', () => {
  it('keeps hostile text as text: the document stays well-formed and reads back the same', () => {
    for (const name of HOSTILE) {
      const xml = renderXml(element('cas:root', { 'xmlns:cas': 'urn:x' }, [element('cas:name', {}, name)]));
      wellFormed(xml);
      const read = parser.parse(xml) as { 'cas:root': { 'cas:name': string[] } };
      const expected = name.replace(
        // eslint-disable-next-line no-control-regex
        /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\ufffe\uffff]/gu,
        '\ufffd',
      );
      expect(read['cas:root']['cas:name'][0]?.replace(/\r\n?/g, '\n')).toBe(expected.replace(/\r\n?/g, '\n'));
    }
  });

  it('escapes attribute values, quotes and line breaks included', () => {
    for (const value of HOSTILE) {
      const xml = renderXml(element('x', { a: value }));
      wellFormed(xml);
      expect(xml).not.toContain('<!--');
    }
    expect(escapeXmlAttribute('"<&>\'\n')).toBe('&quot;&lt;&amp;&gt;&apos;&#10;');
  });

  it('never lets `]]>` or a `<` through in text', () => {
    expect(escapeXmlText(']]><a>&')).toBe(']]&gt;&lt;a&gt;&amp;');
  });

  it('refuses an element or attribute name that is not an XML name (names are never user input)', () => {
    expect(() => renderXml(element('cas:user x="1"'))).toThrow(/not an XML name/);
    expect(() => renderXml(element('x', { 'a b': '1' }))).toThrow(/not an XML name/);
  });
});

describe('the CAS answers', () => {
  it('CAS 3.0 success: cas:user, and every attribute value one element, hostile values intact', () => {
    const answer = authenticationSuccess('XML', {
      user: '10001',
      attributes: { uin: 10001, name: HOSTILE[0] ?? '', groups: ['a', 'b'], isFromNewLogin: true },
    });
    expect(answer.contentType).toMatch(/^application\/xml/);
    wellFormed(answer.body);
    const read = trimmingParser.parse(answer.body) as Record<string, Record<string, Record<string, unknown>>>;
    const success = read['cas:serviceResponse']?.['cas:authenticationSuccess'] as Record<string, unknown>;
    expect(read['cas:serviceResponse']?.['@xmlns:cas']).toBe('http://www.yale.edu/tp/cas');
    expect(success['cas:user']).toBe('10001');
    expect(success['cas:attributes']).toEqual({
      'cas:uin': '10001',
      'cas:name': [HOSTILE[0]],
      'cas:groups': ['a', 'b'],
      'cas:isFromNewLogin': 'true',
    });
  });

  it('failure: the code as an attribute, the description escaped', () => {
    const answer = authenticationFailure('XML', 'INVALID_TICKET', 'Ticket <ST-1&> not recognized');
    wellFormed(answer.body);
    expect(answer.body).toContain(
      '<cas:authenticationFailure code="INVALID_TICKET">Ticket &lt;ST-1&amp;&gt;',
    );
  });

  it('JSON: the same answers in CAS 3.0 appendix A form', () => {
    expect(
      JSON.parse(authenticationSuccess('JSON', { user: '7', attributes: { groups: ['x'] } }).body),
    ).toEqual({
      serviceResponse: { authenticationSuccess: { user: '7', attributes: { groups: ['x'] } } },
    });
    expect(JSON.parse(authenticationFailure('JSON', 'INVALID_SERVICE', 'no').body)).toEqual({
      serviceResponse: { authenticationFailure: { code: 'INVALID_SERVICE', description: 'no' } },
    });
    expect(JSON.parse(proxyFailure('JSON', 'INVALID_REQUEST', 'no').body)).toEqual({
      serviceResponse: { proxyFailure: { code: 'INVALID_REQUEST', description: 'no' } },
    });
  });

  it('CAS 1.0: yes and the user, or no and an empty line', () => {
    expect(validateAnswer('10001').body).toBe('yes\n10001\n');
    expect(validateAnswer(undefined).body).toBe('no\n\n');
  });

  it('logoutRequest: a SessionIndex element with the ticket and no attributes', () => {
    const xml = logoutRequest({
      id: 'LR-1',
      issueInstant: '2026-01-01T00:00:00.000Z',
      nameId: '1',
      ticket: 'ST-abc',
    });
    wellFormed(xml);
    expect(xml).toContain('<samlp:SessionIndex>ST-abc</samlp:SessionIndex>');
    expect(xml).toContain('xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"');
  });
});
