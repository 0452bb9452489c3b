import type { Express } from 'express';
import type { Config } from '@svc/config';
import { DEFINITION_SCHEMA_PATH, definitionJsonSchema } from '@svc/domain';

/**
 * `GET /schemas/workflow-definition.json`: the definition format as JSON Schema, at a stable
 * URL without authentication (it holds no data), for the console's editor and any editor that
 * reads JSON Schema (VS Code's YAML extension: `# yaml-language-server: $schema=<url>`).
 */
export function definitionSchemaRoute(app: Express, config: Config): void {
  let body: string | undefined;
  app.get(DEFINITION_SCHEMA_PATH, (_req, res) => {
    // Built on first use: the base URL may be settled only once the server listens.
    body ??= JSON.stringify(definitionJsonSchema(config.BASE_URL), null, 2);
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.type('application/schema+json').send(body);
  });
}
