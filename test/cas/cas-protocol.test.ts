/**
 * campus-sso as a CAS server (docs/interface.md#cas-protocol), over real HTTP on both databases: the login
 * endpoint's rules, service tickets, the validation endpoints, logout and single logout.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/domain/crypto.js';
import { DEFAULT_SCHEDULE } from '../../src/oauth/logout-delivery.js';
import { describeOnDatabases, signedInUser } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import { LogoutReceiver } from '../helpers/logout-receiver.js';
import { SERVICE, casApp, casLogin, eventually, failureCode, ticketFor, validate } from './support.js';

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  isArray: (name) => name === 'cas:groups' || name === 'cas:successfulAuthenticationHandlers',
});

type Success = { 'cas:user': string; 'cas:attributes'?: Record<string, unknown> };

function success(xml: string): Success {
  expect(XMLValidator.validate(xml)).toBe(true);
  const read = parser.parse(xml) as { 'cas:serviceResponse': { 'cas:authenticationSuccess'?: Success } };
  const found = read['cas:serviceResponse']['cas:authenticationSuccess'];
  if (!found) throw new Error(`not a success: ${xml}`);
  return found;
}

describeOnDatabases('CAS protocol', { transport: 'inject', user: 'admin' }, ({ server, user }) => {
  const admin = user.browser;

  beforeAll(async () => {
    await casApp(server);
  });

  describe('GET /cas/login', () => {
    it('redirects a signed-in user to the service with a ticket of at least 128 random bits', async () => {
      const { browser } = await signedInUser(server);
      const response = await casLogin(browser, { service: SERVICE });
      expect(response.status).toBe(302);
      expect(response.headers.get('cache-control')).toContain('no-store');
      const location = new URL(response.headers.get('location') ?? '');
      expect(`${location.origin}${location.pathname}`).toBe(SERVICE);
      const ticket = location.searchParams.get('ticket') ?? '';
      expect(ticket).toMatch(/^ST-[A-Za-z0-9-]{32,}$/);
    });

    it('keeps the query of the service and matches below a registered URL on a path boundary', async () => {
      const { browser } = await signedInUser(server);
      for (const service of [`${SERVICE}?page=2&x=%20`, `${SERVICE}/deeper/page`]) {
        const response = await casLogin(browser, { service });
        const location = response.headers.get('location') ?? '';
        expect(location.startsWith(`${service}${service.includes('?') ? '&' : '?'}ticket=ST-`)).toBe(true);
      }
    });

    it('shows a page, never a redirect, for an unregistered service', async () => {
      const { browser } = await signedInUser(server);
      const response = await casLogin(browser, { service: 'https://evil.example/portal' });
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const page = await response.text();
      expect(page).toContain('This app is not registered');
      expect(page).toContain('<html lang="en">');
      expect(page).not.toContain('ST-');
    });

    it('says so in Chinese to a browser that prefers it', async () => {
      const response = await new Browser(server).call(
        'GET',
        `/cas/login?service=${encodeURIComponent('https://evil.example/')}`,
        undefined,
        { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.5' },
      );
      const page = await response.text();
      expect(page).toContain('<html lang="zh-CN">');
      expect(page).toContain('该应用未登记');
    });

    it('refuses a prefix without a boundary, another port or scheme, and a service that is not canonical', async () => {
      const { browser } = await signedInUser(server);
      for (const service of [
        `${SERVICE}-evil`,
        `${SERVICE}s`,
        'https://lib.example.edu:444/portal',
        'http://lib.example.edu/portal',
        'https://lib.example.edu/portal/../admin',
        'https://lib.example.edu/x/../portal',
      ]) {
        const response = await casLogin(browser, { service });
        expect(response.status, service).toBe(400);
        expect(response.headers.get('location')).toBeNull();
      }
    });

    it('sends a signed-out user to the sign-in page with the service, and gateway back without a ticket', async () => {
      const browser = new Browser(server);
      const page = await casLogin(browser, { service: SERVICE });
      expect(page.status).toBe(302);
      expect(page.headers.get('location')).toBe(
        `${server.baseUrl}/#/cas?service=${encodeURIComponent(SERVICE)}`,
      );
      const gateway = await casLogin(browser, { service: SERVICE, gateway: 'true' });
      expect(gateway.headers.get('location')).toBe(SERVICE);
    });

    it('gives a ticket through gateway to a signed-in user', async () => {
      const { browser } = await signedInUser(server);
      const ticket = await ticketFor(browser, SERVICE, { gateway: 'true' });
      expect(ticket).toMatch(/^ST-/);
    });

    it('asks for the password again with renew=true, even when signed in (and gateway cannot)', async () => {
      const { browser } = await signedInUser(server);
      const response = await casLogin(browser, { service: SERVICE, renew: 'true' });
      expect(response.headers.get('location')).toBe(
        `${server.baseUrl}/#/cas?service=${encodeURIComponent(SERVICE)}&renew=true`,
      );
      const gateway = await casLogin(browser, { service: SERVICE, renew: 'true', gateway: 'true' });
      expect(gateway.headers.get('location')).toBe(SERVICE);
    });

    it('never gives a shared-computer session a ticket silently: the page asks first', async () => {
      const { uin } = await signedInUser(server);
      const shared = new Browser(server);
      await shared.call('POST', '/v1/account/login', {
        uin,
        password: 'correct horse battery staple',
        shared: true,
      });
      const response = await casLogin(shared, { service: SERVICE });
      expect(response.headers.get('location')).toContain('/#/cas?service=');
      const confirmed = await shared.call('POST', '/v1/cas/ticket', { service: SERVICE });
      expect(confirmed.status).toBe(200);
      const { data } = await json<{ data: { redirect_to: string } }>(confirmed);
      expect(new URL(data.redirect_to).searchParams.get('ticket')).toMatch(/^ST-/);
    });

    it('gives no ticket to a user outside allowed_groups: the page says so, the API refuses', async () => {
      const service = 'https://staff.example.edu/';
      await casApp(server, [service], { allowedGroups: ['teachers'] });
      const { browser } = await signedInUser(server);
      const response = await casLogin(browser, { service });
      expect(response.headers.get('location')).toContain('/#/cas?service=');
      const gateway = await casLogin(browser, { service, gateway: 'true' });
      expect(gateway.headers.get('location')).toBe(service);
      const refused = await browser.call('POST', '/v1/cas/ticket', { service });
      expect(refused.status).toBe(403);
      expect(await json(refused)).toMatchObject({ code: 4 });
      const info = await json<{ data: Record<string, unknown> }>(
        await browser.call('GET', `/v1/cas/service-info?service=${encodeURIComponent(service)}`),
      );
      expect(info.data).toMatchObject({ allowed: false, host: 'staff.example.edu' });
    });

    it('gives no ticket to a disabled or expired user', async () => {
      for (const change of [{ disabled: true }, { expiresAt: Date.now() - 1000 }]) {
        const { uin, browser } = await signedInUser(server);
        await server.ctx.store.users.update(uin, change);
        const response = await casLogin(browser, { service: SERVICE });
        expect(response.headers.get('location')).not.toContain('ticket=');
        expect((await browser.call('POST', '/v1/cas/ticket', { service: SERVICE })).status).toBe(401);
      }
    });

    it('stores the ticket only as its SHA-256 digest', async () => {
      const { browser } = await signedInUser(server);
      const ticket = await ticketFor(browser);
      expect(await server.ctx.store.casTickets.redeem(ticket, Date.now())).toBeUndefined();
      expect(await server.ctx.store.casTickets.redeem(sha256Hex(ticket), Date.now())).toMatchObject({
        service: SERVICE,
      });
    });

    it('audits the ticket issued, and its validation with the outcome', async () => {
      const { uin, browser } = await signedInUser(server);
      const ticket = await ticketFor(browser);
      await validate(server, '/cas/serviceValidate', { ticket, service: SERVICE });
      await validate(server, '/cas/serviceValidate', {
        ticket: await ticketFor(browser),
        service: `${SERVICE}/x`,
      });
      const audit = await json<{
        data: { events: { action: string; outcome: string; actor_uin: number }[] };
      }>(await admin.call('GET', `/v1/admin/audit?uin=${uin}`));
      const cas = audit.data.events
        .filter((e) => e.action.startsWith('cas_'))
        .map((e) => `${e.action}:${e.outcome}`);
      expect(cas.sort()).toEqual(
        [
          'cas_ticket_issued:success',
          'cas_ticket_issued:success',
          'cas_ticket_validated:failure',
          'cas_ticket_validated:success',
        ].sort(),
      );
    });
  });

  describe('validation', () => {
    it('CAS 3.0: the uin as cas:user and the attributes of the spec', async () => {
      const { uin, browser } = await signedInUser(server);
      await server.ctx.store.users.update(uin, {
        name: 'Zhang San',
        email: 'zs@example.edu',
        groups: ['class-2026-3', 'library'],
      });
      const ticket = await ticketFor(browser);
      const answer = await validate(server, '/cas/p3/serviceValidate', { ticket, service: SERVICE });
      expect(answer.status).toBe(200);
      expect(answer.type).toMatch(/xml/);
      const read = success(answer.body);
      expect(read['cas:user']).toBe(String(uin));
      expect(read['cas:attributes']).toMatchObject({
        'cas:uin': String(uin),
        'cas:user_group': 'member',
        'cas:groups': ['class-2026-3', 'library'],
        'cas:name': 'Zhang San',
        'cas:email': 'zs@example.edu',
        'cas:isFromNewLogin': 'true',
        'cas:longTermAuthenticationRequestTokenUsed': 'false',
        'cas:successfulAuthenticationHandlers': ['PasswordAuthenticationHandler'],
      });
      const date = String(read['cas:attributes']?.['cas:authenticationDate']);
      expect(new Date(date).toISOString()).toBe(date);
    });

    it('leaves out name and email when they are not set', async () => {
      const { browser } = await signedInUser(server);
      const answer = await validate(server, '/cas/p3/proxyValidate', {
        ticket: await ticketFor(browser),
        service: SERVICE,
      });
      const attributes = success(answer.body)['cas:attributes'] ?? {};
      expect(attributes).not.toHaveProperty('cas:name');
      expect(attributes).not.toHaveProperty('cas:email');
    });

    it('CAS 2.0: the user without attributes, on serviceValidate and proxyValidate; pgtUrl is ignored', async () => {
      const { uin, browser } = await signedInUser(server);
      for (const path of ['/cas/serviceValidate', '/cas/proxyValidate']) {
        const ticket = await ticketFor(browser);
        const answer = await validate(server, path, {
          ticket,
          service: SERVICE,
          pgtUrl: 'https://lib.example.edu/pgt',
        });
        const read = success(answer.body);
        expect(read['cas:user']).toBe(String(uin));
        expect(read).not.toHaveProperty('cas:attributes');
        expect(answer.body).not.toContain('proxyGrantingTicket');
      }
    });

    it('CAS 1.0: yes and the uin, or no', async () => {
      const { uin, browser } = await signedInUser(server);
      const ticket = await ticketFor(browser);
      const yes = await validate(server, '/cas/validate', { ticket, service: SERVICE });
      expect(yes.body).toBe(`yes\n${uin}\n`);
      expect(yes.type).toMatch(/^text\/plain/);
      const no = await validate(server, '/cas/validate', { ticket, service: SERVICE });
      expect(no.body).toBe('no\n\n');
    });

    it('answers format=JSON in the JSON form', async () => {
      const { uin, browser } = await signedInUser(server);
      const ticket = await ticketFor(browser);
      const answer = await validate(server, '/cas/p3/serviceValidate', {
        ticket,
        service: SERVICE,
        format: 'JSON',
      });
      expect(answer.type).toMatch(/^application\/json/);
      const body = JSON.parse(answer.body) as {
        serviceResponse: { authenticationSuccess: { user: string; attributes: Record<string, unknown> } };
      };
      expect(body.serviceResponse.authenticationSuccess.user).toBe(String(uin));
      expect(body.serviceResponse.authenticationSuccess.attributes).toMatchObject({
        uin,
        user_group: 'member',
        groups: [],
        isFromNewLogin: true,
      });
      const failed = await validate(server, '/cas/serviceValidate', {
        ticket,
        service: SERVICE,
        format: 'json',
      });
      expect(JSON.parse(failed.body)).toEqual({
        serviceResponse: {
          authenticationFailure: { code: 'INVALID_TICKET', description: expect.any(String) },
        },
      });
    });

    it('audits a failed validation with its protocol code and reason, never the ticket, and a replay too', async () => {
      const { uin, browser } = await signedInUser(server);
      const ticket = await ticketFor(browser);
      await validate(server, '/cas/serviceValidate', { ticket, service: `${SERVICE}/x` });
      await validate(server, '/cas/serviceValidate', { ticket, service: SERVICE });
      const audit = await json<{
        data: { events: { action: string; outcome: string; detail: Record<string, unknown> }[] };
      }>(await admin.call('GET', `/v1/admin/audit?uin=${uin}&action=cas_ticket_validated`));
      expect(audit.data.events.map((event) => event.detail)).toEqual([
        { service: SERVICE, error: 'INVALID_TICKET', reason: 'the ticket was used already' },
        {
          service: `${SERVICE}/x`,
          error: 'INVALID_SERVICE',
          reason: `The ticket does not match the service ${SERVICE}/x`,
        },
      ]);
      expect(JSON.stringify(audit.data.events)).not.toContain(ticket);
    });

    it('refuses a format it does not speak with INVALID_REQUEST in XML, leaving the ticket good', async () => {
      const { browser } = await signedInUser(server);
      const ticket = await ticketFor(browser);
      const yaml = await validate(server, '/cas/p3/serviceValidate', {
        ticket,
        service: SERVICE,
        format: 'YAML',
      });
      expect(yaml.type).toMatch(/xml/);
      expect(failureCode(yaml.body)).toBe('INVALID_REQUEST');
      const xml = await validate(server, '/cas/p3/serviceValidate', {
        ticket,
        service: SERVICE,
        format: 'xml',
      });
      expect(xml.body).toContain('cas:authenticationSuccess');
      const proxy = await server.fetch('/cas/proxy?pgt=PGT-1&targetService=x&format=YAML');
      expect(await proxy.text()).toContain('<cas:proxyFailure code="INVALID_REQUEST">');
    });

    it('accepts a ticket once: a second validation is INVALID_TICKET', async () => {
      const { browser } = await signedInUser(server);
      const ticket = await ticketFor(browser);
      success((await validate(server, '/cas/serviceValidate', { ticket, service: SERVICE })).body);
      const again = await validate(server, '/cas/serviceValidate', { ticket, service: SERVICE });
      expect(failureCode(again.body)).toBe('INVALID_TICKET');
    });

    it('has exactly one winner when 20 validations race for one ticket', async () => {
      const { browser } = await signedInUser(server);
      const ticket = await ticketFor(browser);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          validate(server, '/cas/serviceValidate', { ticket, service: SERVICE }),
        ),
      );
      const winners = answers.filter((a) => a.body.includes('cas:authenticationSuccess'));
      expect(winners).toHaveLength(1);
      expect(answers.filter((a) => failureCode(a.body) === 'INVALID_TICKET')).toHaveLength(19);
    });

    it('refuses a ticket presented by another service with INVALID_SERVICE, and uses it up', async () => {
      const { browser } = await signedInUser(server);
      const ticket = await ticketFor(browser);
      const wrong = await validate(server, '/cas/serviceValidate', { ticket, service: `${SERVICE}/other` });
      expect(failureCode(wrong.body)).toBe('INVALID_SERVICE');
      const right = await validate(server, '/cas/serviceValidate', { ticket, service: SERVICE });
      expect(failureCode(right.body)).toBe('INVALID_TICKET');
    });

    it('answers INVALID_REQUEST without ticket or service, INVALID_TICKET for what is no service ticket', async () => {
      expect(failureCode((await validate(server, '/cas/serviceValidate', { service: SERVICE })).body)).toBe(
        'INVALID_REQUEST',
      );
      expect(failureCode((await validate(server, '/cas/p3/serviceValidate', { ticket: 'ST-1' })).body)).toBe(
        'INVALID_REQUEST',
      );
      for (const ticket of ['PT-1', 'ST-<x>', 'ST-1-unknown']) {
        const answer = await validate(server, '/cas/serviceValidate', { ticket, service: SERVICE });
        expect(XMLValidator.validate(answer.body)).toBe(true);
        expect(failureCode(answer.body)).toBe('INVALID_TICKET');
      }
    });

    it('with renew=true accepts only a ticket from a new sign-in', async () => {
      const { browser } = await signedInUser(server);
      // The first ticket after typing the password comes from a new sign-in; the next one from single sign-on.
      const fresh = await ticketFor(browser);
      const sso = await ticketFor(browser);
      success(
        (await validate(server, '/cas/serviceValidate', { ticket: fresh, service: SERVICE, renew: 'true' }))
          .body,
      );
      const refused = await validate(server, '/cas/serviceValidate', {
        ticket: sso,
        service: SERVICE,
        renew: 'true',
      });
      expect(failureCode(refused.body)).toBe('INVALID_TICKET');
      const attributes = success(
        (
          await validate(server, '/cas/p3/serviceValidate', {
            ticket: await ticketFor(browser),
            service: SERVICE,
          })
        ).body,
      )['cas:attributes'];
      expect(attributes?.['cas:isFromNewLogin']).toBe('false');
    });

    it('after renew=true at login, the page signs in again and the ticket passes renew validation', async () => {
      const { uin, browser } = await signedInUser(server);
      await ticketFor(browser);
      // Not fresh any more: the page must show the sign-in form; the API refuses until then.
      expect((await browser.call('POST', '/v1/cas/ticket', { service: SERVICE, renew: true })).status).toBe(
        401,
      );
      await browser.login(uin, 'correct horse battery staple');
      const issued = await browser.call('POST', '/v1/cas/ticket', { service: SERVICE, renew: true });
      const { data } = await json<{ data: { redirect_to: string } }>(issued);
      const ticket = new URL(data.redirect_to).searchParams.get('ticket') ?? '';
      success(
        (await validate(server, '/cas/serviceValidate', { ticket, service: SERVICE, renew: 'true' })).body,
      );
    });

    it('refuses a ticket whose user was disabled after it was issued', async () => {
      const { uin, browser } = await signedInUser(server);
      const ticket = await ticketFor(browser);
      await server.ctx.store.users.update(uin, { disabled: true });
      expect(
        failureCode((await validate(server, '/cas/serviceValidate', { ticket, service: SERVICE })).body),
      ).toBe('INVALID_TICKET');
    });

    it('voids the unvalidated tickets of a session that signs out', async () => {
      const { browser } = await signedInUser(server);
      const ticket = await ticketFor(browser);
      await browser.call('POST', '/v1/account/logout');
      expect(
        failureCode((await validate(server, '/cas/serviceValidate', { ticket, service: SERVICE })).body),
      ).toBe('INVALID_TICKET');
    });

    it('stays well-formed with a hostile display name, which reads back intact', async () => {
      const hostile = '</cas:name><cas:user>0</cas:user>&amp;"\'<![CDATA[x]]>';
      const { uin, browser } = await signedInUser(server);
      await server.ctx.store.users.update(uin, { name: hostile });
      const answer = await validate(server, '/cas/p3/serviceValidate', {
        ticket: await ticketFor(browser),
        service: SERVICE,
      });
      const read = success(answer.body);
      expect(read['cas:user']).toBe(String(uin));
      expect(read['cas:attributes']?.['cas:name']).toBe(hostile);
    });

    it('/cas/proxy answers proxyFailure INVALID_REQUEST: no proxy-granting tickets', async () => {
      const answer = await validate(server, '/cas/proxy', { pgt: 'PGT-1', targetService: SERVICE });
      expect(XMLValidator.validate(answer.body)).toBe(true);
      expect(answer.body).toContain('<cas:proxyFailure code="INVALID_REQUEST">');
      const asJson = await validate(server, '/cas/proxy', {
        pgt: 'PGT-1',
        targetService: SERVICE,
        format: 'JSON',
      });
      expect(JSON.parse(asJson.body)).toMatchObject({
        serviceResponse: { proxyFailure: { code: 'INVALID_REQUEST' } },
      });
    });
  });

  describe('GET /cas/logout and single logout', () => {
    let receiver: LogoutReceiver;
    beforeAll(async () => {
      receiver = await new LogoutReceiver().start();
    });
    afterAll(async () => {
      await receiver?.stop();
    });

    /** A user whose ticket for the receiver's service was validated; answers the ticket. */
    async function validatedAtReceiver(): Promise<{ uin: number; browser: Browser; ticket: string }> {
      const { uin, browser } = await signedInUser(server);
      const ticket = await ticketFor(browser, receiver.uri);
      success((await validate(server, '/cas/serviceValidate', { ticket, service: receiver.uri })).body);
      return { uin, browser, ticket };
    }

    beforeAll(async () => {
      await casApp(server, [receiver.uri]);
    });

    it('ends the session and goes back to a registered service', async () => {
      const { browser } = await signedInUser(server);
      const response = await browser.call(
        'GET',
        `/cas/logout?service=${encodeURIComponent(`${SERVICE}/bye`)}`,
      );
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`${SERVICE}/bye`);
      expect((await browser.call('GET', '/v1/account/me')).status).toBe(401);
    });

    it('says "You are signed out" instead of going to an unregistered service', async () => {
      const { browser } = await signedInUser(server);
      const response = await browser.call(
        'GET',
        `/cas/logout?service=${encodeURIComponent('https://evil.example/')}`,
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).toContain('You are signed out');
      expect((await browser.call('GET', '/v1/account/me')).status).toBe(401);
    });

    it('posts a logoutRequest naming the validated ticket to its service when the session ends', async () => {
      const { uin, browser, ticket } = await validatedAtReceiver();
      const before = receiver.received.length;
      await browser.call('GET', '/cas/logout');
      const [delivery] = (await receiver.waitFor(before + 1)).slice(before);
      expect(delivery?.contentType).toBe('application/x-www-form-urlencoded');
      const request = new URLSearchParams(delivery?.body).get('logoutRequest') ?? '';
      expect(XMLValidator.validate(request)).toBe(true);
      expect(request).toContain(`<samlp:SessionIndex>${ticket}</samlp:SessionIndex>`);
      expect(request).toContain(`<saml:NameID>${uin}</saml:NameID>`);
      expect(request).toMatch(/<samlp:LogoutRequest [^>]*Version="2.0"/);
    });

    it('sends single logout whatever ends the session (an admin signing the user out)', async () => {
      const { uin, ticket } = await validatedAtReceiver();
      await admin.call('POST', `/v1/admin/users/${uin}/sign-out`, {});
      await eventually(() => receiver.received.some((r) => r.body.includes(encodeURIComponent(ticket))));
    });

    it('sends none for a ticket that was never validated', async () => {
      const { browser } = await signedInUser(server);
      const unvalidated = await ticketFor(browser, receiver.uri);
      const { browser: other, ticket } = await validatedAtReceiver();
      await browser.call('GET', '/cas/logout');
      await other.call('GET', '/cas/logout');
      // Queued in order: once the second session's request arrived, the first one's would have too.
      await eventually(() => receiver.received.some((r) => r.body.includes(encodeURIComponent(ticket))));
      expect(receiver.received.some((r) => r.body.includes(encodeURIComponent(unvalidated)))).toBe(false);
    });

    it('retries a service that is down, and admins see the app pending, then delivered', async () => {
      const worker = server.logoutDeliveries;
      worker.schedule = { ...DEFAULT_SCHEDULE, firstRetryMs: 200, pollIntervalMs: 100 };
      const down = await new LogoutReceiver().start();
      try {
        const app = await casApp(server, [down.uri]);
        const { browser } = await signedInUser(server);
        const ticket = await ticketFor(browser, down.uri);
        success((await validate(server, '/cas/serviceValidate', { ticket, service: down.uri })).body);
        down.down = true;
        await browser.call('GET', '/cas/logout');
        type AppJson = {
          backchannel_logout_pending: number;
          backchannel_logout_last_attempt: { result: string } | null;
        };
        const view = async (): Promise<AppJson> =>
          (await json<{ data: { app: AppJson } }>(await admin.call('GET', `/v1/admin/apps/${app.clientId}`)))
            .data.app;
        await eventually(async () => (await view()).backchannel_logout_last_attempt?.result === 'HTTP 503');
        expect((await view()).backchannel_logout_pending).toBe(1);
        down.down = false;
        await down.waitFor(1);
        await eventually(async () => (await view()).backchannel_logout_pending === 0);
        expect((await view()).backchannel_logout_last_attempt?.result).toBe('delivered');
        expect(down.received[0]?.body).toContain(
          encodeURIComponent(`<samlp:SessionIndex>${ticket}</samlp:SessionIndex>`),
        );
      } finally {
        worker.schedule = DEFAULT_SCHEDULE;
        await down.stop();
      }
    });
  });

  describe('the service registry in the admin API', () => {
    it('registers a CAS-only app, lists its services, and changes them', async () => {
      const created = await admin.call('POST', '/v1/admin/apps', {
        name: 'Moodle',
        emoji: '🎓',
        cas_services: ['https://moodle.example.edu/login/index.php'],
      });
      expect(created.status).toBe(200);
      const { data } = await json<{ data: { app: { client_id: string; cas_services: string[] } } }>(created);
      expect(data.app.cas_services).toEqual(['https://moodle.example.edu/login/index.php']);
      const list = await json<{ data: { apps: { client_id: string; cas_services: string[] }[] } }>(
        await admin.call('GET', '/v1/admin/apps'),
      );
      expect(list.data.apps.find((a) => a.client_id === data.app.client_id)?.cas_services).toHaveLength(1);
      const changed = await admin.call('PATCH', `/v1/admin/apps/${data.app.client_id}`, {
        cas_services: ['https://moodle.example.edu/', 'http://127.0.0.1:8080/'],
      });
      expect(
        (await json<{ data: { app: { cas_services: string[] } } }>(changed)).data.app.cas_services,
      ).toEqual(['https://moodle.example.edu/', 'http://127.0.0.1:8080/']);
    });

    it('refuses a service URL that is not canonical, plain http off loopback, or an app with neither kind of URL', async () => {
      for (const cas_services of [
        ['https://moodle.example.edu/a/../b'],
        ['http://moodle.example.edu/'],
        [],
      ]) {
        const response = await admin.call('POST', '/v1/admin/apps', { name: 'M', emoji: '🎓', cas_services });
        expect(response.status).toBe(400);
        expect(await json(response)).toMatchObject({ code: 1 });
      }
    });

    it('answers the page which app a service belongs to, or 400 code 3 when none', async () => {
      const info = await new Browser(server).call(
        'GET',
        `/v1/cas/service-info?service=${encodeURIComponent(`${SERVICE}/x`)}`,
      );
      expect(await json(info)).toMatchObject({
        data: { name: 'Library', emoji: '📚', shared_computer: false },
      });
      const none = await new Browser(server).call(
        'GET',
        `/v1/cas/service-info?service=${encodeURIComponent('https://evil.example/')}`,
      );
      expect(none.status).toBe(400);
      expect(await json(none)).toMatchObject({ code: 3 });
    });
  });
});
