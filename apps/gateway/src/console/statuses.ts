import { RUN_STATUSES } from '@svc/contract';

/** The run statuses of the contract, in its order: the console's filters offer exactly these. */
export const RUN_STATUS_LIST: readonly string[] = RUN_STATUSES;
export const TERMINAL_RUN_STATUSES: ReadonlySet<string> = new Set(['succeeded', 'failed', 'cancelled']);
/** Only these can be cancelled (the contract's rule; any other status answers 409). */
export const CANCELLABLE_RUN_STATUSES: ReadonlySet<string> = new Set(['queued', 'waiting_for_review']);
