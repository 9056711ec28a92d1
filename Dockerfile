# gw in a container (docs/deploy.md "Docker"): built with Bun into one executable, run on a slim
# glibc base as a non-root user, data in the /data volume.
#   docker build -t gw .
#   docker run -d --name gw -p 127.0.0.1:8080:8080 -v gw-data:/data --env-file gw.env --stop-timeout 40 gw

# Build: the node image brings Node's headers, python3, make and g++ for hnswlib-node's native
# addon (node-gyp), which the compiled binary embeds.
FROM node:20-bookworm AS build
ARG BUN_VERSION=1.4.5
RUN npm install -g "bun@${BUN_VERSION}"
ENV npm_config_nodedir=/usr/local
WORKDIR /src
COPY package.json bun.lock bunfig.toml ./
COPY patches ./patches
RUN bun install --frozen-lockfile
COPY . .
# `gw doctor` checks SQLite and its migrations, the native addon, the tokenizer and the catalog.
RUN bun run scripts/build.ts && ./dist/gw doctor

# Run: glibc and libstdc++ for the binary and the addon, CA certificates for the providers'
# HTTPS, curl for the health check.
FROM debian:bookworm-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends ca-certificates curl \
  && rm -rf /var/lib/apt/lists/* \
  && useradd --system --user-group --uid 10001 --home-dir /data --no-create-home --shell /usr/sbin/nologin gw \
  && install -d -o gw -g gw -m 0700 /data
COPY --from=build /src/dist/gw /usr/local/bin/gw
USER gw:gw
# Listen on every interface inside the container; publish the port on the host's loopback and
# put TLS in front (docs/deploy.md "TLS").
ENV HOST=0.0.0.0 PORT=8080 GW_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8080
# SIGTERM starts the drain (GW_SHUTDOWN_TIMEOUT_S, 30 s, plus up to 4 s): give `docker stop` more
# than its default 10 s (--stop-timeout 40, or stop_grace_period: 40s in compose).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD curl -fsS -o /dev/null "http://127.0.0.1:${PORT}/healthz" || exit 1
ENTRYPOINT ["/usr/local/bin/gw"]
CMD ["serve"]
