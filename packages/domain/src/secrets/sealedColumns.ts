import { sealedContext } from './contexts';

/** A row as re-encryption reads it: its key columns, `workspace_id` and its sealed columns. */
export type SealedRow = Record<string, string | null>;

export interface SealedColumn {
  /** What `svc secrets reencrypt` counts it as. */
  kind: string;
  column: string;
  context(row: SealedRow): string;
}

export interface SealedTable {
  table: string;
  /** The primary key, in the order rows are walked. */
  keys: string[];
  columns: SealedColumn[];
}

const str = (row: SealedRow, column: string) => row[column] as string;
/** The context of a value in a row keyed by `id`. */
const ofRow = (context: (workspaceId: string, id: string) => string) => (r: SealedRow) => context(str(r, 'workspace_id'), str(r, 'id'));

/** Every column the SecretBox seals; a new sealed column needs a line here to be rotated. */
export const SEALED_TABLES: readonly SealedTable[] = [
  {
    table: 'secrets',
    keys: ['workspace_id', 'name'],
    columns: [
      {
        kind: 'workspace_secrets',
        column: 'value_enc',
        context: (r) => sealedContext.workspaceSecret(str(r, 'workspace_id'), str(r, 'name')),
      },
    ],
  },
  {
    table: 'workflows',
    keys: ['id'],
    columns: [
      { kind: 'trigger_secrets', column: 'trigger_secret_enc', context: ofRow(sealedContext.triggerSecret) },
      { kind: 'trigger_signing_secrets', column: 'trigger_signing_secret_enc', context: ofRow(sealedContext.triggerSigningSecret) },
      // A rotation moves the current ciphertext to these columns as it is: the same contexts.
      { kind: 'trigger_previous_secrets', column: 'trigger_previous_secret_enc', context: ofRow(sealedContext.triggerSecret) },
      {
        kind: 'trigger_previous_signing_secrets',
        column: 'trigger_previous_signing_secret_enc',
        context: ofRow(sealedContext.triggerSigningSecret),
      },
    ],
  },
  {
    table: 'webhook_endpoints',
    keys: ['id'],
    columns: [
      { kind: 'endpoint_secrets', column: 'secret_enc', context: ofRow(sealedContext.endpointSigningSecret) },
      { kind: 'endpoint_previous_secrets', column: 'previous_secret_enc', context: ofRow(sealedContext.endpointSigningSecret) },
    ],
  },
];
