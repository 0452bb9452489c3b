import { z } from 'zod';
import { idParam, IdempotencyKey, jsonObject } from './common';
import { RUN_STATUSES } from './runs';

/** The inbound webhook trigger `POST /hooks/{trigger_id}`. */

export const TRIGGER_BODY_LIMIT_BYTES = 256 * 1024;

export const TriggerIdParams = z.object({
  trigger_id: idParam('trg', 'trg_0123456789abcdefghijklmn').meta({ description: "The workflow's trigger id, as in `trigger.url`." }),
});

export const HookHeaders = z.object({
  'x-svc-secret': z
    .string()
    .optional()
    .meta({ description: "The trigger's shared secret (required when the trigger's `secret` is on); compared in constant time." }),
  'x-svc-signature': z
    .string()
    .optional()
    .meta({
      description:
        "Lowercase hex HMAC-SHA256 of the exact raw body bytes, keyed with the trigger's signing secret; an optional `sha256=` prefix is " +
        "accepted (required when the trigger's `signature` is on). Uppercase hex is refused.",
    }),
  'Idempotency-Key': IdempotencyKey.optional().meta({
    description:
      '1–255 printable ASCII characters, bare or in double quotes. A key seen on this trigger within 24 h answers 200 with the ' +
      'original run id, whatever the body, and starts nothing.',
  }),
});

export const HookPayload = jsonObject(
  "Any JSON object, at most 256 KB (262144 bytes) as sent, with no U+0000 in any string; it becomes the run's `input`.",
).meta({ id: 'TriggerPayload' });

export const HookAccepted = z
  .object({
    run_id: z.string().meta({ example: 'run_0123456789abcdefghijklmn' }),
    status: z.enum(RUN_STATUSES).meta({ description: 'The run status when the answer was written (usually `queued`).' }),
  })
  .meta({ id: 'TriggerAccepted', description: 'The run started by (or, on a replay, previously started by) this delivery.' });

export type HookAccepted = z.infer<typeof HookAccepted>;
