/** A `host:port` setting (IPv6 in brackets, as the config schema accepts it) → what `listen` takes. */
export function splitHostPort(address: string): { host: string; port: number } {
  const i = address.lastIndexOf(':');
  return { host: address.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(address.slice(i + 1)) };
}
