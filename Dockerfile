# One image for every role; the command picks it (gateway, worker or the svc CLI).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json prisma.config.ts tsconfig.base.json tsconfig.json ./
COPY scripts ./scripts
COPY prisma ./prisma
COPY packages ./packages
COPY temporal ./temporal
COPY apps ./apps
RUN npm ci && npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
# The gateway's process defaults (packages/config APP_PROCESSES; test/compose.test.ts holds them
# equal): one malloc arena. Run the worker with MALLOC_ARENA_MAX=2, as the Compose file does.
ENV MALLOC_ARENA_MAX=1
WORKDIR /app
COPY --from=build /app /app
USER node
EXPOSE 8080
# The gateway's node flags (APP_PROCESSES): V8 flags only take effect on the command line.
CMD ["node", "--no-wasm-dynamic-tiering", "--no-wasm-tier-up", "--max-semi-space-size=2", "--heap-growing-percent=30", "apps/gateway/dist/main.js"]
