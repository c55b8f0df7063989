# syntax=docker/dockerfile:1
# briefbot's image: the compiled JavaScript in dist/ on a current Node LTS, production dependencies only,
# run as a non-root user. (Node 20 left long-term support in April 2026; the code still runs on 20, which
# CI uses, and `--build-arg NODE_VERSION=…` picks another line.)
ARG NODE_VERSION=24

# Compiles TypeScript to dist/ with the dev dependencies (TypeScript itself).
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
COPY bots ./bots
COPY db ./db
RUN npm run build

# Production dependencies only.
FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production \
    BRIEFBOT_DATA_DIR=/data \
    PORT=3000
WORKDIR /app
RUN groupadd --system briefbot && useradd --system --gid briefbot --home /app briefbot \
    && mkdir -p /data && chown briefbot:briefbot /data
COPY --from=deps --chown=briefbot:briefbot /app/node_modules ./node_modules
COPY --from=build --chown=briefbot:briefbot /app/dist ./dist
COPY --chown=briefbot:briefbot package.json ./
COPY --chown=briefbot:briefbot bin ./bin
# `docker compose exec briefbot briefbot user list`: the CLI inside the container reaches the running bot.
RUN chmod +x bin/briefbot.js && ln -s /app/bin/briefbot.js /usr/local/bin/briefbot
USER briefbot
VOLUME ["/data"]
EXPOSE 3000
# /healthz is 503 while the bot cannot do its job (database, scheduler or a platform down).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
ENTRYPOINT ["node", "bin/briefbot.js"]
CMD ["start"]
