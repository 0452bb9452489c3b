import { curlLine, formatBanner } from './banner';

const demo = {
  workspaceId: 'ws_1',
  keyId: 'key_1',
  key: 'svc_abc',
  workflowId: 'wf_1',
  workflowSlug: 'greet',
  createdAt: '2026-01-01T00:00:00.000Z',
};

describe('banner', () => {
  it('prints every URL, the demo key and a one-line curl command', () => {
    const text = formatBanner({
      baseUrl: 'http://localhost:8080',
      temporalUiUrl: 'http://127.0.0.1:8233',
      temporal: { address: '127.0.0.1:7233', namespace: 'default' },
      workerMetricsUrl: 'http://127.0.0.1:9464/metrics',
      dataDir: '/x/.data',
      demo,
      embedded: { postgres: true, temporal: true },
    });
    expect(text).toContain('http://localhost:8080/api/v1\n');
    expect(text).toContain('http://localhost:8080/api/v1/openapi.json');
    expect(text).toContain('http://localhost:8080/docs');
    expect(text).toContain('http://127.0.0.1:8233');
    expect(text).toMatch(/ Temporal +127\.0\.0\.1:7233 \(namespace default\)\n/);
    expect(text).toMatch(/ Worker metrics +http:\/\/127\.0\.0\.1:9464\/metrics\n/);
    expect(text).toContain('svc_abc');
    const curl = text.split('\n').find((l) => l.trim().startsWith('curl'));
    expect(curl?.trim()).toBe(curlLine('http://localhost:8080', 'wf_1', 'svc_abc'));
  });

  it('prints the console and the demo admin one-time sign-in link', () => {
    const text = formatBanner({
      baseUrl: 'http://localhost:8080',
      temporalUiUrl: null,
      temporal: { address: '127.0.0.1:7233', namespace: 'default' },
      workerMetricsUrl: 'http://127.0.0.1:9464/metrics',
      dataDir: '/d',
      demo,
      consoleLink: 'http://localhost:8080/console/link/tok',
      embedded: { postgres: true, temporal: true },
    });
    expect(text).toMatch(/Console +http:\/\/localhost:8080\/console\n/);
    expect(text).toMatch(/Console sign-in +http:\/\/localhost:8080\/console\/link\/tok /);
  });

  it('shows the note instead of demo data when there is none', () => {
    const text = formatBanner({
      baseUrl: 'http://h:1',
      temporalUiUrl: null,
      temporal: { address: 'temporal.internal:7233', namespace: 'prod' },
      workerMetricsUrl: 'http://10.0.0.5:9464/metrics',
      dataDir: '/d',
      demo: null,
      demoNote: 'No demo data.',
      embedded: { postgres: false, temporal: false },
    });
    expect(text).toContain('No demo data.');
    expect(text).not.toContain('curl');
    expect(text).toContain('external Temporal');
  });

  it('builds a curl line a POSIX shell parses back to the intended arguments', () => {
    const line = curlLine('http://localhost:8080', 'wf_1', "svc_it's");
    expect(line).toBe(
      "curl -sS -X POST 'http://localhost:8080/api/v1/workflows/wf_1/runs' -H 'Authorization: Bearer svc_it'\\''s' " +
        `-H 'Content-Type: application/json' -d '{"input":{"name":"Ada"},"wait":true}'`,
    );
  });
});
