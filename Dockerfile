# syntax=docker/dockerfile:1
# The gateway's image. Build stage: all dependencies, tsc, then `npm prune --omit=dev` and the
# runtime tree (scripts/runtime-tree.sh, the same tree CI serves from). Runtime stage: that tree
# only (production dependencies, dist/, the bundled contracts, the sample catalogue), read-only
# for the non-root user that runs it; DATA_DIR on a volume.
#
#   docker build -t ai-gateway .
#   docker run --init --stop-timeout 40 -p 8080:8080 -v gateway-data:/data -e ADMIN_TOKEN=... ai-gateway
#   docker exec <container> npm run admin -- customers create --name Acme   (the built CLI)
#
# Node 22 (LTS) satisfies every dependency's engines field; NODE_VERSION=24 works as well.
ARG NODE_VERSION=22

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No dependency needs an install script to build or run the gateway (esbuild's and the Claude Code
# CLI's serve development tools only), so none runs.
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json catalogue.sample.yaml ./
COPY generated ./generated
COPY src ./src
COPY console ./console
COPY scripts/runtime-tree.sh scripts/admin.js scripts/build-console.js ./scripts/
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && sh scripts/runtime-tree.sh /runtime

FROM node:${NODE_VERSION}-bookworm-slim
LABEL org.opencontainers.image.title="ai-gateway" \
      org.opencontainers.image.description="Contract-first AI API gateway: Anthropic Messages, OpenAI Chat Completions, video tasks, exact wallet ledger" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.licenses="UNLICENSED" \
      org.opencontainers.image.documentation="README.md"
# SANDBOX=false: an image runs real providers; a first try sets SANDBOX=true (no demo key otherwise).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data \
    SANDBOX=false
WORKDIR /app
COPY --from=build /runtime ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# Readiness, not liveness: a draining replica (SIGTERM received) reports unhealthy at once. The
# slim image has no curl; Node's fetch does the request.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form, no npm or shell in between: `docker stop`'s SIGTERM reaches the gateway, which drains
# for up to SHUTDOWN_GRACE_SECONDS (30 by default; give `docker stop`/compose a longer timeout).
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/main.js"]
