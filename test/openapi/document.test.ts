/**
 * `GET /v1/openapi.json` (docs/interface.md#openapi): a valid OpenAPI 3.1 document, generated from the routes,
 * that lists every `/v1` and `/cas` route the server registers.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import type { RouteOptions } from 'fastify';
import { expect, it } from 'vitest';
import { buildServer } from '../../src/http/server.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import { fetchDocument } from './document.js';

/** OpenAPI writes `/v1/admin/users/:uin` as `/v1/admin/users/{uin}`. */
const openApiPath = (url: string): string => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describeOnDatabases('GET /v1/openapi.json', ({ server }) => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const document = await fetchDocument(server.baseUrl);
    expect(document.openapi).toMatch(/^3\.1\./);
    const result = await new Validator().validate(document as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists every /v1 and /cas route the server registers, with each of its methods', async () => {
    const registered: string[] = [];
    const app = await buildServer(server.ctx, {
      logger: false,
      onRoute: (route: RouteOptions) => {
        if (!route.url.startsWith('/v1/') && !route.url.startsWith('/cas/')) return;
        const methods = Array.isArray(route.method) ? route.method : [route.method];
        // Fastify adds a HEAD route beside each GET; the document describes the GET.
        for (const method of methods) if (method !== 'HEAD') registered.push(`${method} ${route.url}`);
      },
    });
    await app.ready();
    await app.close();
    const document = await fetchDocument(server.baseUrl);
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(registered.length).toBeGreaterThan(60);
    expect(documented).toEqual(expect.arrayContaining(registered.map((r) => openApiPath(r))));
  });

  it('says what each operation answers, and what credentials it needs', async () => {
    const document = await fetchDocument(server.baseUrl);
    const problems: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        const statuses = Object.keys(operation.responses);
        if (!statuses.some((status) => /^[23]/.test(status))) problems.push(`${where}: no success answer`);
        if (!statuses.includes('4XX')) problems.push(`${where}: no error answer`);
        for (const [status, response] of Object.entries(operation.responses)) {
          if (response.description === 'Default Response')
            problems.push(`${where} ${status}: no description`);
        }
        if (operation.security === undefined) problems.push(`${where}: no security`);
      }
    }
    expect(problems).toEqual([]);
  });
});
