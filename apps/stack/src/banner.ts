import type { DemoInfo } from './demo';

export interface BannerInfo {
  /** Gateway base URL (BASE_URL). */
  baseUrl: string;
  temporalUiUrl: string | null;
  /** Where operators point the `temporal` CLI. */
  temporal: { address: string; namespace: string };
  /** The worker's Prometheus endpoint (WORKER_METRICS_ADDRESS). */
  workerMetricsUrl: string;
  dataDir: string;
  demo: DemoInfo | null;
  /** Which services this process runs itself. */
  embedded: { postgres: boolean; temporal: boolean };
  /** Shown when there is no demo (e.g. why). */
  demoNote?: string;
  /** A one-time console sign-in link for the demo admin (15 minutes). */
  consoleLink?: string;
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** A single ready-to-paste line that starts a demo run and waits for its result. */
export function curlLine(baseUrl: string, workflowId: string, key: string, name = 'Ada'): string {
  const body = JSON.stringify({ input: { name }, wait: true });
  return [
    'curl -sS -X POST',
    shellQuote(`${baseUrl}/api/v1/workflows/${workflowId}/runs`),
    '-H',
    shellQuote(`Authorization: Bearer ${key}`),
    '-H',
    shellQuote('Content-Type: application/json'),
    '-d',
    shellQuote(body),
  ].join(' ');
}

export function formatBanner(b: BannerInfo): string {
  const rows: Array<[string, string]> = [
    ['API', `${b.baseUrl}/api/v1`],
    ['OpenAPI', `${b.baseUrl}/api/v1/openapi.json`],
    ['API reference', `${b.baseUrl}/docs`],
    ['Console', `${b.baseUrl}/console`],
    ['Temporal', `${b.temporal.address} (namespace ${b.temporal.namespace})`],
    ['Temporal UI', b.temporalUiUrl ?? '(external Temporal: see your cluster)'],
    ['Worker metrics', b.workerMetricsUrl],
    ['Data', `${b.dataDir}${b.embedded.postgres || b.embedded.temporal ? '' : ' (not used: external PostgreSQL and Temporal)'}`],
  ];
  if (b.demo) {
    rows.push(['Demo workspace', b.demo.workspaceId]);
    rows.push(['Demo workflow', `${b.demo.workflowId} (${b.demo.workflowSlug})`]);
    rows.push(['Demo API key', b.demo.key]);
  }
  if (b.consoleLink) rows.push(['Console sign-in', `${b.consoleLink}  (demo admin, one-time, 15 min)`]);
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = ['', 'svc is running', '', ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`), ''];
  if (b.demo) {
    lines.push('Start a run and wait for its result:', '', `  ${curlLine(b.baseUrl, b.demo.workflowId, b.demo.key)}`, '');
  } else if (b.demoNote) {
    lines.push(b.demoNote, '');
  }
  lines.push('Press Ctrl-C to stop.', '');
  return lines.join('\n');
}
