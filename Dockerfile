# syntax=docker/dockerfile:1
# Build stage: install with dev dependencies, compile TypeScript, then drop dev dependencies.
FROM node:24-slim AS build
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
RUN npm ci && npm prune --omit=dev

# Runtime stage: compiled output and production dependencies only.
FROM node:24-slim
ENV NODE_ENV=production \
    LEDGER_DATA_DIR=/data \
    LEDGER_RPC_HOST=0.0.0.0
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
ENTRYPOINT ["node", "bin/ledger.js"]
CMD ["start"]
