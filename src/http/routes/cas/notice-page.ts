/**
 * The two pages `/cas/login` and `/cas/logout` answer on the server (docs/interface.md#cas-protocol): "this
 * service is not registered" (never a redirect to it) and "you are signed out". Plain HTML in the reader's
 * language (Accept-Language: Simplified Chinese or English), no script, with a link to the sign-in page.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { escapeXmlAttribute, escapeXmlText } from '../../../cas/xml.js';

type Locale = 'en' | 'zh-CN';
export type Notice = 'unregisteredService' | 'signedOut';

const STRINGS: Readonly<
  Record<Locale, Readonly<Record<Notice, { title: string; body: string }>> & { home: string }>
> = {
  en: {
    unregisteredService: {
      title: 'This app is not registered',
      body:
        'The address this app asked campus-sso to return to is not registered for sign-in, so you were not ' +
        'signed in to it. Tell the app’s administrator: its CAS service URL must be registered on the ' +
        'campus-sso management page.',
    },
    signedOut: {
      title: 'You are signed out',
      body: 'You are signed out of campus-sso. Apps that support it are signed out too.',
    },
    home: 'Go to the campus sign-in page',
  },
  'zh-CN': {
    unregisteredService: {
      title: '该应用未登记',
      body: '该应用要求 campus-sso 返回的地址没有登记，因此没有为您登录该应用。请告知该应用的管理员：需要在 campus-sso 管理页面登记它的 CAS 服务地址。',
    },
    signedOut: {
      title: '您已退出登录',
      body: '您已退出 campus-sso。支持的应用也已一并退出。',
    },
    home: '前往校园统一登录页面',
  },
};

/** Simplified Chinese when the browser prefers any Chinese over English, else English. */
function localeOf(request: FastifyRequest): Locale {
  const header = request.headers['accept-language'] ?? '';
  const first = header.split(',')[0]?.trim().toLowerCase() ?? '';
  return first.startsWith('zh') ? 'zh-CN' : 'en';
}

export function sendNotice(
  request: FastifyRequest,
  reply: FastifyReply,
  notice: Notice,
  status: number,
  homeUrl: string,
): FastifyReply {
  const locale = localeOf(request);
  const strings = STRINGS[locale];
  const { title, body } = strings[notice];
  const html = `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeXmlText(title)} · campus-sso</title>
<style>body{font-family:system-ui,sans-serif;margin:0;background:#f5f7fa;color:#1f2329}main{max-width:32rem;margin:12vh auto;padding:2rem;background:#fff;border-radius:12px}h1{font-size:1.4rem}a{color:#0b57a4}</style>
</head>
<body>
<main>
<h1>${escapeXmlText(title)}</h1>
<p data-testid="cas-notice">${escapeXmlText(body)}</p>
<p><a href="${escapeXmlAttribute(homeUrl)}">${escapeXmlText(strings.home)}</a></p>
</main>
</body>
</html>
`;
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('content-language', locale)
    .type('text/html; charset=utf-8')
    .send(html);
}
