# syntax=docker/dockerfile:1
# The Node.js image both stages build on. Any image with node and npm on the PATH and a `node`
# user works; without a reachable image registry, make one with scripts/make-base-image.sh and
# pass --build-arg NODE_IMAGE=localhost/ledger-node-base:24 (docs/operators.md, "Container image").
ARG NODE_IMAGE=node:24-slim

# Build stage: install with dev dependencies, compile TypeScript, then drop dev dependencies.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY node ./node
COPY plugins ./plugins
COPY bench ./bench
COPY genesis ./genesis
COPY scripts ./scripts
# the commit /v1/health reports (the build context has no .git): --build-arg LEDGER_BUILD_COMMIT=$(git rev-parse HEAD)
ARG LEDGER_BUILD_COMMIT=unknown
ENV LEDGER_BUILD_COMMIT=$LEDGER_BUILD_COMMIT
# npm ci runs `prepare`, the build. Behind a TLS-intercepting proxy or a registry with its own CA,
# hand its certificates in as the optional secret `npm_ca` (--secret id=npm_ca,src=<pem file>);
# they are read during this step only and never stored in a layer.
RUN --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

# Runtime stage: compiled output and production dependencies only.
FROM ${NODE_IMAGE}
# Every listener on all interfaces, or published ports would reach nothing: each binds
# 127.0.0.1 by default. All four plugins run, as with `npm start`; LEDGER_PLUGINS narrows it.
ENV NODE_ENV=production \
    LEDGER_DATA_DIR=/data \
    LEDGER_RPC_HOST=0.0.0.0 \
    LEDGER_P2P_HOST=0.0.0.0 \
    LEDGER_EXPLORER_HOST=0.0.0.0 \
    LEDGER_RELAY_HOST=0.0.0.0 \
    LEDGER_KYC_HOST=0.0.0.0 \
    LEDGER_WALLET_HOST=0.0.0.0 \
    LEDGER_PLUGINS=all
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/genesis ./genesis
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
# JSON-RPC + DID resolver, libp2p, explorer, relay, KYC, wallet
EXPOSE 8545 30333 8081 8082 8083 8084
# node itself probes the RPC's /health (slim images have no curl): 200 while the node serves and
# consensus has not halted; a halted node answers 503
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.LEDGER_RPC_PORT || 8545}/health`, { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/ledger.js"]
CMD ["start"]
