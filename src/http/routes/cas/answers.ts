/**
 * The answers of the CAS protocol endpoints (docs/interface.md#cas-protocol) as response schemas
 * (docs/interface.md#openapi): CAS 1.0 text, CAS 2.0/3.0 XML or, with `format=JSON`, JSON, and the two pages.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import { HtmlPage, Redirect } from '../../response-schemas.js';

const Failure = Type.Object(
  { code: Type.String(), description: Type.String() },
  { additionalProperties: false },
);

/** CAS 3.0 §2.5.2 and appendix B: `{"serviceResponse":{…}}`. */
const ServiceResponse = (member: Record<string, TSchema>) =>
  Type.Object(
    {
      serviceResponse: Type.Object(member, {
        additionalProperties: false,
        minProperties: 1,
        maxProperties: 1,
      }),
    },
    { additionalProperties: false },
  );

const ValidationJson = ServiceResponse({
  authenticationSuccess: Type.Optional(
    Type.Object(
      {
        user: Type.String(),
        attributes: Type.Optional(
          Type.Record(
            Type.String(),
            Type.Union([Type.String(), Type.Integer(), Type.Boolean(), Type.Array(Type.String())]),
          ),
        ),
      },
      { additionalProperties: false },
    ),
  ),
  authenticationFailure: Type.Optional(Failure),
});

const XmlOrJson = (json: TSchema, description: string) => ({
  description,
  content: {
    'application/xml': { schema: Type.String({ description: 'cas:serviceResponse (CAS 3.0 appendix A)' }) },
    'application/json': { schema: json },
  },
});

/** `/cas/serviceValidate` and the others: success or failure both 200; a fault of the server 500. */
export const ValidationAnswers = {
  200: XmlOrJson(ValidationJson, 'cas:authenticationSuccess, or cas:authenticationFailure with its code'),
  500: XmlOrJson(ValidationJson, 'cas:authenticationFailure INTERNAL_ERROR'),
};

/** `/cas/validate` (CAS 1.0, §2.4.2). */
const Cas1Text = {
  content: { 'text/plain': { schema: Type.String({ description: 'yes\\n<uin>\\n or no\\n\\n' }) } },
};
export const Cas1Answers = {
  200: { description: 'yes and the uin, or no', ...Cas1Text },
  500: { description: 'no: the server could not validate the ticket', ...Cas1Text },
};

/** `/cas/proxy`: always cas:proxyFailure (campus-sso issues no proxy-granting tickets). */
export const ProxyAnswers = {
  200: XmlOrJson(ServiceResponse({ proxyFailure: Failure }), 'cas:proxyFailure INVALID_REQUEST'),
};

export const LoginAnswers = {
  302: Redirect(
    'To the service with ticket=ST-…, to the sign-in page, back to the service without a ticket ' +
      '(gateway), or home when no service was named',
  ),
  400: HtmlPage('The service is not registered: a page that says so, never a redirect'),
};

export const LogoutAnswers = {
  200: HtmlPage('You are signed out'),
  302: Redirect('Signed out, back to the registered service'),
};
