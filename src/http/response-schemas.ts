/**
 * Response schemas shared by many routes (docs/interface.md#openapi): the two answer conventions of
 * ./responses.ts, and the non-JSON answers (redirects, HTML pages, CAS text and XML). Each route declares its
 * own answers from these in `schema.response`, beside its handler; the OpenAPI document is generated from them.
 * They document and test the answers; they do not serialize them (./plugins/response-serialization.ts).
 */
import { type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { EnvelopeCode } from '../shared/envelope.js';

/** A success in the envelope (docs/interface.md#the-envelope): `{"code":0,"msg":"ok","data":…}`. */
export function Envelope<T extends TSchema>(data: T, description = 'Success, in the envelope') {
  return Type.Object(
    { code: Type.Literal(EnvelopeCode.Ok), msg: Type.Literal('ok'), data },
    { additionalProperties: false, description },
  );
}

/** A success in the envelope whose `data` is an object with exactly these members. */
export function EnvelopeOf<P extends TProperties>(data: P, description?: string) {
  return Envelope(Type.Object(data, { additionalProperties: false }), description);
}

/** `data: {}`: a success that has nothing more to say. */
export const EmptyEnvelope = EnvelopeOf({}, 'Done, in the envelope');

/**
 * An error in the envelope (./responses.ts renders it): `code` one of docs/interface.md#the-envelope, `msg` a
 * sentence, `data` `{}` or a few members the pages act on (a refused password's `reason`, a lock warning).
 */
export const ErrorEnvelope = Type.Object(
  {
    code: Type.Integer({ description: 'docs/interface.md#the-envelope: never 0' }),
    msg: Type.String(),
    data: Type.Record(Type.String(), Type.Unknown()),
  },
  { additionalProperties: false, description: 'Error, in the envelope' },
);

/** RFC 6749 §5.2 / RFC 6750 §3: an error of the standard OAuth endpoints. */
export const OAuthErrorBody = Type.Object(
  { error: Type.String(), error_description: Type.Optional(Type.String()) },
  { additionalProperties: false, description: 'Error (RFC 6749 §5.2, RFC 6750 §3)' },
);

/** An answer without a body (`type: 'null'` is how @fastify/swagger leaves out its content). */
export const NoBody = (description: string, headers?: Record<string, TSchema>) =>
  Type.Unsafe<undefined>({ type: 'null', description, ...(headers && { headers }) });

/** A redirect (302, no body): where to is in `Location`. */
export const Redirect = (description: string) =>
  // `headers` maps each header to its schema (as @fastify/swagger reads it).
  NoBody(description, { location: Type.String({ description: 'Where the browser goes next' }) });

/** A response of a non-JSON media type: `{ content: { [mediaType]: { schema } } }`, as Fastify reads it. */
export function Content(mediaType: string, schema: TSchema, description: string) {
  return { description, content: { [mediaType]: { schema } } };
}

/** An HTML page. */
export const HtmlPage = (description: string) =>
  Content('text/html', Type.String({ description: 'an HTML document' }), description);

/** Properties of an object schema, for building a larger one. */
export type PropertiesOf<T> = T extends TObject<infer P> ? P : never;
