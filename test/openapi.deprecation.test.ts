import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import express from 'express';
import { z } from 'zod';
import { buildOpenApiDocument, checkDeprecation, DEFAULT_BASE_URL, deprecatedOperations } from '@svc/contract';
import { problemTypes } from '@svc/domain';
import { deprecationNotices } from '../apps/gateway/src/openapi/deprecation';
import { call } from './helpers/http';

/**
 * A deprecated route answers with Deprecation (RFC 9745) and Sunset (RFC 8594) and is
 * marked deprecated in the document — one mechanism: the `deprecation` of an operation's
 * registration in packages/contract, read by the document and by the gateway's middleware (the
 * same `deprecationNotices(document)` createApp installs). Exercised with a test-only operation
 * registered through the contract's own helpers; the production document has none.
 */

const SINCE = '2026-01-01T00:00:00Z';
const SUNSET = '2027-01-31T00:00:00Z';

const problems = problemTypes(DEFAULT_BASE_URL);

const withLegacy = () =>
  buildOpenApiDocument({
    problems,
    extraPaths: ({ op, ok, problem }) => ({
      '/api/v1/legacy/{thing_id}': {
        get: op({
          operationId: 'getLegacyThing',
          summary: 'A test-only deprecated operation',
          tags: ['Runs'],
          scope: 'runs:read',
          deprecation: { since: SINCE, sunset: SUNSET, successor: '/api/v1/runs/{run_id}' },
          requestParams: { path: z.object({ thing_id: z.string() }) },
          responses: {
            '200': ok(z.object({ id: z.string() }), 'The thing.', { id: 't_1' }),
            '404': problem(['not_found'], 'No such thing (not_found).'),
          },
        }),
      },
    }),
  });

describe('deprecation', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const app = express();
    app.use(deprecationNotices(withLegacy()));
    app.get('/api/v1/legacy/:thing_id', (req, res) => {
      res.json({ id: req.params.thing_id });
    });
    app.get('/api/v1/workflows', (_req, res) => {
      res.json({ data: [], next_cursor: null });
    });
    app.use((_req, res) => {
      res.status(404).json({ code: 'not_found' });
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  it('marks the operation deprecated in the document, with the headers its answers carry', () => {
    const doc = withLegacy();
    const op = doc.paths!['/api/v1/legacy/{thing_id}']!.get! as Record<string, any>;
    expect(op.deprecated).toBe(true);
    expect(op['x-deprecation']).toEqual({
      since: SINCE,
      sunset: SUNSET,
      successor: '/api/v1/runs/{run_id}',
      info: '/docs#/Runs/getLegacyThing',
    });
    for (const status of ['200', '401', '404', '429']) {
      expect(op.responses[status].headers).toMatchObject({
        Deprecation: { $ref: '#/components/headers/Deprecation' },
        Sunset: { $ref: '#/components/headers/Sunset' },
        Link: { $ref: '#/components/headers/Link' },
      });
    }
    expect(doc.components!.headers!.Deprecation).toMatchObject({ required: true });
    expect(deprecatedOperations(doc)).toEqual([
      expect.objectContaining({ method: 'GET', path: '/api/v1/legacy/{thing_id}', operationId: 'getLegacyThing' }),
    ]);
  });

  it('answers with Deprecation (@unix seconds), Sunset (HTTP-date) and Link; other routes carry none', async () => {
    const r = await call(`${url}/api/v1/legacy/t_1`);
    expect(r.status).toBe(200);
    expect(r.headers.get('deprecation')).toBe(`@${Date.parse(SINCE) / 1000}`);
    expect(r.headers.get('deprecation')).toBe('@1767225600');
    expect(r.headers.get('sunset')).toBe('Sun, 31 Jan 2027 00:00:00 GMT');
    expect(r.headers.get('link')).toBe(
      '</api/v1/runs/{run_id}>; rel="successor-version", </docs#/Runs/getLegacyThing>; rel="deprecation"; type="text/html"',
    );
    // HEAD of a deprecated GET too; a trailing slash is the same route.
    const head = await call(`${url}/api/v1/legacy/t_1/`, { method: 'HEAD' });
    expect(head.headers.get('sunset')).toBe('Sun, 31 Jan 2027 00:00:00 GMT');

    for (const other of ['/api/v1/workflows', '/api/v1/legacy', '/api/v1/legacy/a/b']) {
      const plain = await call(url + other);
      expect({ other, deprecation: plain.headers.get('deprecation'), sunset: plain.headers.get('sunset') }).toEqual({
        other,
        deprecation: null,
        sunset: null,
      });
    }
    const post = await call(`${url}/api/v1/legacy/t_1`, { method: 'POST' });
    expect(post.headers.get('deprecation')).toBeNull();
  });

  it('refuses a deprecation that gives less than the 12 months the API promises', () => {
    expect(() => checkDeprecation({ since: SINCE, sunset: '2026-06-01T00:00:00Z' })).toThrow(/less than 12 months/);
    expect(() => checkDeprecation({ since: 'soon', sunset: SUNSET })).toThrow(/RFC 3339/);
    expect(() =>
      buildOpenApiDocument({
        problems,
        extraPaths: ({ op }) => ({
          '/api/v1/x': {
            get: op({
              operationId: 'x',
              summary: 'x',
              deprecation: { since: SINCE, sunset: SINCE },
              responses: { '204': { description: 'x' } },
            }),
          },
        }),
      }),
    ).toThrow(/less than 12 months/);
  });

  it('the production document (served and committed) has no test operation and nothing deprecated today', () => {
    const committed = JSON.parse(readFileSync(path.resolve(__dirname, '../openapi/openapi.json'), 'utf8'));
    expect(Object.keys(committed.paths).filter((p) => p.includes('legacy'))).toEqual([]);
    expect(deprecatedOperations(buildOpenApiDocument({ problems }))).toEqual([]);
    expect(deprecatedOperations(committed)).toEqual([]);
    expect(committed.components.headers.Deprecation).toBeUndefined();
  });
});
