/**
 * The CAS validation answers (Apereo CAS Protocol 3.0 §2.4–§2.7, appendix A; docs/interface.md#cas-protocol):
 * CAS 1.0 plain text, and the CAS 2.0/3.0 `cas:serviceResponse` in XML (through the one writer, xml.ts) or,
 * with `format=JSON`, its JSON form. Only this module knows what the answers look like.
 */
import { element, renderXml, type XmlElement } from './xml.js';

/** CAS 3.0 §2.5.3 / §2.7.2: the failure codes campus-sso uses. */
export type CasFailureCode = 'INVALID_REQUEST' | 'INVALID_TICKET' | 'INVALID_SERVICE' | 'INTERNAL_ERROR';

export type CasFormat = 'XML' | 'JSON';

/** One attribute: a single value, or several (one XML element each, a JSON array). */
export type CasAttributeValue = string | number | boolean | readonly string[];

export interface CasSuccess {
  /** `cas:user`: the uin. */
  readonly user: string;
  /** Released by the CAS 3.0 endpoints only (`cas:attributes`). */
  readonly attributes?: Readonly<Record<string, CasAttributeValue>>;
}

/** A rendered answer: the media type and the body. */
export interface CasAnswer {
  readonly contentType: string;
  readonly body: string;
}

const CAS_NAMESPACE = 'http://www.yale.edu/tp/cas';
const XML_TYPE = 'application/xml; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

function serviceResponse(child: XmlElement): CasAnswer {
  return {
    contentType: XML_TYPE,
    body: renderXml(element('cas:serviceResponse', { 'xmlns:cas': CAS_NAMESPACE }, [child])),
  };
}

function json(value: unknown): CasAnswer {
  return { contentType: JSON_TYPE, body: JSON.stringify(value) };
}

function xmlValues(name: string, value: CasAttributeValue): XmlElement[] {
  const values = typeof value === 'object' ? value : [String(value)];
  return values.map((one) => element(`cas:${name}`, {}, one));
}

/** CAS 3.0 §2.5.2 / appendix A: `cas:authenticationSuccess` with the user and, for 3.0, the attributes. */
export function authenticationSuccess(format: CasFormat, success: CasSuccess): CasAnswer {
  if (format === 'JSON') {
    return json({
      serviceResponse: {
        authenticationSuccess: {
          user: success.user,
          ...(success.attributes && { attributes: success.attributes }),
        },
      },
    });
  }
  const children: XmlElement[] = [element('cas:user', {}, success.user)];
  if (success.attributes) {
    const attributes = Object.entries(success.attributes).flatMap(([name, value]) => xmlValues(name, value));
    children.push(element('cas:attributes', {}, attributes));
  }
  return serviceResponse(element('cas:authenticationSuccess', {}, children));
}

/** CAS 3.0 §2.5.2: `cas:authenticationFailure code="…"` with a description. */
export function authenticationFailure(
  format: CasFormat,
  code: CasFailureCode,
  description: string,
): CasAnswer {
  if (format === 'JSON') {
    return json({ serviceResponse: { authenticationFailure: { code, description } } });
  }
  return serviceResponse(element('cas:authenticationFailure', { code }, description));
}

/** CAS 3.0 §2.7.2: `cas:proxyFailure` (campus-sso issues no proxy-granting tickets). */
export function proxyFailure(format: CasFormat, code: CasFailureCode, description: string): CasAnswer {
  if (format === 'JSON') return json({ serviceResponse: { proxyFailure: { code, description } } });
  return serviceResponse(element('cas:proxyFailure', { code }, description));
}

/** CAS 3.0 §2.4.2: the CAS 1.0 answer, `yes\n<user>\n` or `no\n\n`. */
export function validateAnswer(user: string | undefined): CasAnswer {
  return {
    contentType: 'text/plain; charset=utf-8',
    body: user === undefined ? 'no\n\n' : `yes\n${user}\n`,
  };
}

/**
 * CAS 3.0 appendix C: the single-logout `logoutRequest`. The SessionIndex element carries the service
 * ticket and nothing else (phpCAS reads it by a literal match).
 */
export function logoutRequest(input: {
  readonly id: string;
  readonly issueInstant: string;
  readonly nameId: string;
  readonly ticket: string;
}): string {
  return renderXml(
    element(
      'samlp:LogoutRequest',
      {
        'xmlns:samlp': 'urn:oasis:names:tc:SAML:2.0:protocol',
        'xmlns:saml': 'urn:oasis:names:tc:SAML:2.0:assertion',
        ID: input.id,
        Version: '2.0',
        IssueInstant: input.issueInstant,
      },
      [element('saml:NameID', {}, input.nameId), element('samlp:SessionIndex', {}, input.ticket)],
    ),
  );
}
