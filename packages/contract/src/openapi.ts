import { z } from 'zod';
import { createDocument } from 'zod-openapi';
import type { oas31, ZodOpenApiOperationObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { PageQuery, Problem } from './common';
import { ListRunsQuery, Run, RunIdParams, RunList, StartRunBody } from './runs';
import { Workflow, WorkflowIdParams, WorkflowList } from './workflows';

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: Problem } } });

const requestIdHeader = {
  'Request-Id': { description: 'Identifies the request; also in problem bodies and logs.', schema: { type: 'string' as const } },
};

/** Answers every authenticated route can give. */
const authErrors: ZodOpenApiResponsesObject = {
  '401': problem('Missing, malformed, unknown, revoked or expired API key.'),
  '403': problem('The key lacks the scope, or the request came from a browser.'),
  '429': problem('Rate limited; see Retry-After.'),
  '500': problem('Internal error.'),
  '503': problem('A dependency is unavailable; retry.'),
};

function op(o: ZodOpenApiOperationObject & { scope?: string }): ZodOpenApiOperationObject {
  const { scope, ...rest } = o;
  return {
    ...rest,
    ...(scope ? { security: [{ bearerAuth: [scope] }], 'x-required-scope': scope } : { security: [] }),
    responses: { ...rest.responses, ...(scope ? authErrors : {}) },
  };
}

const ok = (schema: z.ZodType, description: string) => ({
  description,
  headers: requestIdHeader,
  content: { 'application/json': { schema } },
});

export function buildOpenApiDocument(opts: { serverUrl?: string } = {}): oas31.OpenAPIObject {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'svc — Workflow Run API',
      version: '1.0.0',
      description: 'Start workflow runs, read their steps, wait for results. Errors are RFC 9457 problem details.',
    },
    servers: [{ url: opts.serverUrl ?? 'http://localhost:8080' }],
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key `svc_…`; each operation names the scope it needs.' },
      },
    },
    paths: {
      '/api/v1/workflows': {
        get: op({
          operationId: 'listWorkflows',
          summary: 'List workflows',
          scope: 'workflows:read',
          requestParams: { query: PageQuery },
          responses: { '200': ok(WorkflowList, 'A page of workflows, newest first.'), '400': problem('Bad query parameters.') },
        }),
      },
      '/api/v1/workflows/{workflow_id}': {
        get: op({
          operationId: 'getWorkflow',
          summary: 'Get a workflow',
          scope: 'workflows:read',
          requestParams: { path: WorkflowIdParams },
          responses: { '200': ok(Workflow, 'The workflow.'), '404': problem('No such workflow in this workspace.') },
        }),
      },
      '/api/v1/workflows/{workflow_id}/runs': {
        post: op({
          operationId: 'startRun',
          summary: 'Start a run',
          scope: 'runs:write',
          requestParams: {
            path: WorkflowIdParams,
            header: z.object({
              'Idempotency-Key': z
                .string()
                .min(1)
                .max(257)
                .optional()
                .meta({ description: '1–255 printable ASCII characters, quoted or bare. Replays within 24 h return the original run.' }),
            }),
          },
          requestBody: { required: true, content: { 'application/json': { schema: StartRunBody } } },
          responses: {
            '200': {
              ...ok(Run, 'Replay of an earlier request with the same Idempotency-Key.'),
              headers: { ...requestIdHeader, 'Idempotent-Replayed': { schema: { type: 'string', enum: ['true'] } } },
            },
            '201': {
              ...ok(Run, 'The new run (with `wait`, as it is once settled or after 25 s).'),
              headers: { ...requestIdHeader, Location: { schema: { type: 'string' }, description: '/api/v1/runs/{id}' } },
            },
            '400': problem('Malformed JSON or a bad Idempotency-Key header.'),
            '404': problem('No such workflow in this workspace.'),
            '413': problem('Input over 1 MiB.'),
            '415': problem('Body is not application/json.'),
            '422': problem('Validation failed, or the Idempotency-Key was used with another body.'),
          },
        }),
        get: op({
          operationId: 'listRuns',
          summary: "List a workflow's runs",
          scope: 'runs:read',
          requestParams: { path: WorkflowIdParams, query: ListRunsQuery },
          responses: {
            '200': ok(RunList, 'A page of runs (without steps), newest first.'),
            '400': problem('Bad query parameters.'),
            '404': problem('No such workflow in this workspace.'),
          },
        }),
      },
      '/api/v1/runs/{run_id}': {
        get: op({
          operationId: 'getRun',
          summary: 'Get a run with its steps',
          scope: 'runs:read',
          requestParams: { path: RunIdParams },
          responses: { '200': ok(Run, 'The run.'), '404': problem('No such run in this workspace.') },
        }),
      },
      '/api/v1/openapi.json': {
        get: op({
          operationId: 'getOpenApiDocument',
          summary: 'This document',
          responses: {
            '200': { description: 'OpenAPI 3.1 document.', content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } },
          },
        }),
      },
    },
  });
}
