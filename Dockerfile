# syntax=docker/dockerfile:1

# Document Management Service: a multi-stage image on Node 24 LTS.
#   docker build -t document-management-service .
#   docker run -p 3000:3000 -e JWT_SECRET=... -v dms-data:/app/data document-management-service
# The default database is SQLite in /app/data (a volume); set DATABASE_URL=mysql://... for MySQL
# (docker-compose.yml does, and runs the migrations before the app starts).

ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: all dependencies, compile TypeScript, then drop the dev dependencies ----
FROM ${NODE_IMAGE} AS build
# better-sqlite3 compiles its native addon from source when no prebuilt binary can be downloaded.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# node-gyp takes the headers of the Node that is installed instead of downloading them.
ENV npm_config_nodedir=/usr/local \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci
COPY tsconfig.json tsconfig.build.json ormconfig.ts ./
COPY src ./src
# Of better-sqlite3's compilation only the addon is kept, not its sources and object files (~25 MB).
RUN npm run build \
 && npm prune --omit=dev \
 && cd node_modules/better-sqlite3 \
 && rm -rf deps src build/Release/obj build/Release/obj.target build/Release/.deps \
      build/Release/sqlite3.a build/Release/test_extension.node

# ---- runtime: production node_modules and dist/ only, as the non-root user `node` ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
# Code and dependencies stay owned by root (read-only for the app); only the data directory is writable.
# package.json is needed at run time: its "type": "module" makes Node load dist/ as ES modules.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME ["/app/data"]
USER node
EXPOSE 3000
# slim images have no curl: Node's own fetch probes the liveness endpoint.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/health/live`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# As `npm run start:prod` (bench/README.md, "Memory and Node options"): --no-allocation-site-pretenuring
# keeps request-scoped objects in V8's young generation instead of filling the old one with garbage;
# --max-semi-space-size=8 halves the young generation; --max-old-space-size=256 (about 4x the live
# heap) makes V8 size its old generation for a small heap: measured ~55 MB instead of ~75 MB under the
# same load. Peak RSS under full load is then ~145-195 MB instead of ~300. Raise the 256 only if
# many large request bodies must be held at once.
CMD ["node", "--no-allocation-site-pretenuring", "--max-semi-space-size=8", "--max-old-space-size=256", "dist/src/main.js"]
