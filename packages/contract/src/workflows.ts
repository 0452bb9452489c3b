import { z } from 'zod';
import { Count, idParam, jsonObject, pageOf, Timestamp } from './common';

export const WorkflowIdParams = z.object({ workflow_id: idParam('wf', 'wf_0123456789abcdefghijklmn') });

export const Workflow = z
  .object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    description: z.string(),
    version: Count.min(1).meta({ description: 'Grows by one with every change of the definition.' }),
    input_schema: jsonObject('The JSON Schema a run input must match, as the definition gives it; null when there is none.').nullable(),
    steps: z.array(z.object({ key: z.string(), name: z.string(), type: z.enum(['http', 'transform', 'condition', 'delay', 'review']) })),
    trigger: z.object({ url: z.string(), auth: z.object({ secret: z.boolean(), signature: z.boolean() }) }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Workflow' });

export const WorkflowList = pageOf(Workflow, 'WorkflowList');
