/**
 * What each sealed value is bound to (the SecretBox's context, AES-GCM associated data): its
 * purpose, its workspace and its row. A ciphertext copied anywhere else does not open.
 * An endpoint's current and previous signing secrets share one context, because a rotation
 * moves the current ciphertext into the previous column as it is.
 */
export const sealedContext = {
  workspaceSecret: (workspaceId: string, name: string) => `secret:${workspaceId}:${name}`,
  triggerSecret: (workspaceId: string, workflowId: string) => `trigger-secret:${workspaceId}:${workflowId}`,
  triggerSigningSecret: (workspaceId: string, workflowId: string) => `trigger-signing-secret:${workspaceId}:${workflowId}`,
  endpointSigningSecret: (workspaceId: string, endpointId: string) => `endpoint-signing:${workspaceId}:${endpointId}`,
};
