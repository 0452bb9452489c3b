export function iso(d: Date | null | undefined): string | null {
  return d ? d.toISOString() : null;
}

export function durationMs(start: Date | null | undefined, end: Date | null | undefined): number | null {
  return start && end ? Math.max(0, end.getTime() - start.getTime()) : null;
}
