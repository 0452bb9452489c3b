import { defineConfig } from 'prisma/config';

// The CLI only needs a URL for migrate/introspect; `generate` must work without one,
// so an unset DATABASE_URL is not an error here.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  ...(process.env.DATABASE_URL ? { datasource: { url: process.env.DATABASE_URL } } : {}),
});
