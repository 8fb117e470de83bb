# One image for both production processes: `node dist/api/server.js` and `node dist/worker/main.js`.
# The browser grid, PostgreSQL and Temporal are separate services (docker-compose.yml).
# Node 24 is the LTS line the bootstrap installs on machines with an older Node (package.json engines).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The SDK is an npm workspace of the root package: npm ci needs its manifest.
COPY clients/typescript/package.json ./clients/typescript/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma/migrations ./prisma/migrations
USER node
EXPOSE 3000
CMD ["node", "dist/api/server.js"]
