# syntax=docker/dockerfile:1
# briefbot runs its TypeScript through tsx (a production dependency), so the image needs no build step:
# one stage installs production dependencies, the final stage copies them with the sources, as a non-root user.

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    BRIEFBOT_DATA_DIR=/data \
    PORT=3000
WORKDIR /app
RUN groupadd --system briefbot && useradd --system --gid briefbot --home /app briefbot \
    && mkdir -p /data && chown briefbot:briefbot /data
COPY --from=deps --chown=briefbot:briefbot /app/node_modules ./node_modules
COPY --chown=briefbot:briefbot package.json tsconfig.json ./
COPY --chown=briefbot:briefbot bin ./bin
COPY --chown=briefbot:briefbot src ./src
COPY --chown=briefbot:briefbot bots ./bots
COPY --chown=briefbot:briefbot db ./db
USER briefbot
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
ENTRYPOINT ["node", "bin/briefbot.js"]
CMD ["start"]
