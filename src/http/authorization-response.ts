/**
 * Sends the authorization response the way the client asked (docs/interface.md#response-modes): `query`, a
 * 302 to the redirect URI with the parameters in its query (RFC 6749 §4.1.2); `form_post`, a page whose form
 * posts them to the redirect URI and submits itself (OAuth 2.0 Form Post Response Mode §2), with a button for a
 * browser without JavaScript. Neither is ever cached: both carry a code or the error of one request.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { type AuthorizationResponse, responseUrl, sentParameters } from '../oauth/authorization/response.js';
import { NO_STORE_HEADERS } from '../oauth/tokens.js';

/** HTML text and attribute values: every character that could end a value or start markup. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The page's own policy, instead of the pages' one (src/http/plugins/security-headers.ts): nothing loads, the
 * one inline script runs by its nonce (CSP 3 §6.7.2.4), and the form may go only to the redirect URI's origin
 * (`form-action`; a CSP source cannot carry the URI's query, so the origin is named).
 */
function formPostPolicy(redirectUri: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `form-action ${new URL(redirectUri).origin}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** OAuth 2.0 Form Post Response Mode §2: hidden fields in order, submitted on load; a button without script. */
function formPostPage(response: AuthorizationResponse, nonce: string): string {
  const fields = sentParameters(response)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Returning to the app</title>
</head>
<body>
<form method="post" action="${escapeHtml(response.redirectUri)}">
${fields}
<noscript>
<p>JavaScript is turned off in this browser. Press Continue to return to the app.</p>
<button type="submit">Continue</button>
</noscript>
</form>
<script nonce="${nonce}">document.forms[0].submit();</script>
</body>
</html>
`;
}

/** Sends a `form_post` response: 200, the self-submitting form, its own CSP, never cached. */
export function sendFormPost(reply: FastifyReply, response: AuthorizationResponse): FastifyReply {
  const nonce = randomBytes(16).toString('base64');
  return reply
    .code(200)
    .headers({
      ...NO_STORE_HEADERS,
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': formPostPolicy(response.redirectUri, nonce),
    })
    .send(formPostPage(response, nonce));
}

/** Sends the response in its mode; a redirect is 302 (RFC 9700 §4.12), never 307. */
export function sendAuthorizationResponse(
  reply: FastifyReply,
  response: AuthorizationResponse,
): FastifyReply {
  if (response.responseMode === 'form_post') return sendFormPost(reply, response);
  // The URL may carry a fresh code: never cache it (RFC 6749 §10.5). No CORS headers (RFC 9700 §2).
  return reply.headers(NO_STORE_HEADERS).redirect(responseUrl(response), 302);
}
