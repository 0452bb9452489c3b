/**
 * Waiting work of many tenants (workspaces), served in turn: one FIFO per tenant, and the
 * tenants with waiting work in a rotation, so one tenant's backlog never stands in front of
 * another's next item. A tenant holds at most `maxPerTenant` waiting items. The taker may pass
 * over tenants it cannot serve now (they keep their place).
 */
export class FairQueue<T> {
  // A Map keeps insertion order: the first entry is the tenant served next, and a tenant
  // served is re-inserted at the end while it still has work.
  private readonly byTenant = new Map<string, T[]>();
  private count = 0;

  constructor(private readonly maxPerTenant: number) {}

  /** Adds an item to its tenant's line; false (nothing added) when that line is full. */
  push(tenant: string, item: T): boolean {
    const line = this.byTenant.get(tenant);
    if (!line) this.byTenant.set(tenant, [item]);
    else if (line.length >= this.maxPerTenant) return false;
    else line.push(item);
    this.count++;
    return true;
  }

  /** The oldest item of the first tenant in turn that `eligible` accepts; that tenant then goes to the back. */
  shift(eligible: (tenant: string) => boolean = () => true): T | undefined {
    const tenant = this.next(eligible);
    if (tenant === undefined) return undefined;
    const line = this.byTenant.get(tenant) as T[];
    const item = line.shift() as T;
    this.byTenant.delete(tenant);
    if (line.length > 0) this.byTenant.set(tenant, line);
    this.count--;
    return item;
  }

  /** The first tenant in turn that `eligible` accepts, if any has waiting work. */
  next(eligible: (tenant: string) => boolean = () => true): string | undefined {
    for (const tenant of this.byTenant.keys()) if (eligible(tenant)) return tenant;
    return undefined;
  }

  /** Takes an item out of its tenant's line (it gave up waiting); false when it was not there. */
  remove(tenant: string, item: T): boolean {
    const line = this.byTenant.get(tenant);
    const i = line ? line.indexOf(item) : -1;
    if (!line || i < 0) return false;
    line.splice(i, 1);
    if (line.length === 0) this.byTenant.delete(tenant);
    this.count--;
    return true;
  }

  get size(): number {
    return this.count;
  }

  /** Items waiting for one tenant. */
  waiting(tenant: string): number {
    return this.byTenant.get(tenant)?.length ?? 0;
  }
}
