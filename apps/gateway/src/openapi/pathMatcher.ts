/**
 * Matches request paths against OpenAPI path templates (`/api/v1/runs/{run_id}`): a template
 * parameter is one non-empty path segment, as in the Express routes. One trailing slash is
 * ignored, as Express does.
 */
export function templateMatcher(template: string): (path: string) => boolean {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  const re = new RegExp(`^${source}/?$`);
  return (path) => re.test(path);
}
