# One image for every role, built once; the command picks it: the gateway (default), the worker
# (apps/worker/dist/main.js), migrations (scripts/migrate.js) or the svc CLI (apps/cli/bin/svc.js).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json prisma.config.ts tsconfig.base.json tsconfig.json ./
COPY scripts ./scripts
COPY prisma ./prisma
COPY packages ./packages
COPY temporal ./temporal
COPY apps ./apps
RUN npm ci && npm run build

# Runtime dependencies only: no embedded PostgreSQL, bench or test tools. Install scripts stay
# off (the root one generates the Prisma client, already built above); re2 builds its binding.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/packages ./packages
COPY --from=build /app/temporal ./temporal
COPY --from=build /app/apps ./apps
RUN find packages temporal apps -name node_modules -prune -exec rm -rf {} + \
  && npm ci --omit=dev --ignore-scripts && npm rebuild re2

FROM node:20-bookworm-slim
ENV NODE_ENV=production
# The gateway's process defaults (packages/config APP_PROCESSES; test/compose.test.ts holds them
# equal): one malloc arena. Run the worker with MALLOC_ARENA_MAX=2, as the Compose file does.
ENV MALLOC_ARENA_MAX=1
# The commit this image was built from, in /healthz and svc_build_info: `--build-arg GIT_COMMIT=$(git rev-parse HEAD)`.
ARG GIT_COMMIT=""
ENV SVC_GIT_COMMIT=${GIT_COMMIT}
WORKDIR /app
COPY --from=deps /app /app
COPY prisma ./prisma
COPY scripts/migrate.js ./scripts/
USER node
EXPOSE 8080
# The gateway's node flags (APP_PROCESSES): V8 flags only take effect on the command line.
CMD ["node", "--no-wasm-dynamic-tiering", "--no-wasm-tier-up", "--max-semi-space-size=2", "--heap-growing-percent=30", "apps/gateway/dist/main.js"]
