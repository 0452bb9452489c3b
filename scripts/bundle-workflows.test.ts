import { readFileSync } from 'node:fs';
import path from 'node:path';

// The bundle `npm run build` writes (npm test builds first).
const bundle = path.resolve(__dirname, '../temporal/dist/workflow-bundle.js');

it('keeps the inline source map the SDK requires, without copies of the sources', () => {
  const code = readFileSync(bundle, 'utf8');
  const at = code.lastIndexOf('//# sourceMappingURL=data:');
  expect(at).toBeGreaterThan(0);
  const map = JSON.parse(
    Buffer.from(code.slice(code.indexOf('base64,', at) + 'base64,'.length).trim(), 'base64').toString('utf8'),
  ) as Record<string, unknown>;
  expect(map.mappings).toEqual(expect.any(String));
  expect((map.mappings as string).length).toBeGreaterThan(1000);
  expect(map.sources).toEqual(expect.arrayContaining([expect.stringMatching(/temporal\/workflows\/runWorkflow\.ts$/)]));
  expect(map).not.toHaveProperty('sourcesContent');
});
