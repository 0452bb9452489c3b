export const SCOPES = ['workflows:read', 'runs:read', 'runs:write', 'reviews:write', 'webhooks:read', 'webhooks:write'] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}
