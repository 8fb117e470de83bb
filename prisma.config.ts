// Prisma CLI configuration (Prisma 7: the datasource URL lives here, not in schema.prisma).
// The CLI only needs a URL for commands that talk to a database; `prisma generate` does not.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/placeholder' },
});
