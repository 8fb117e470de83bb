/**
 * The layering of the source tree (docs/architecture.md "Layering"), checked by
 * `npm run lint:deps` and by test/unit/architecture.test.ts (which `npm test` runs).
 * Paths are relative to the repository root; npm packages resolve under node_modules/.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No import cycles anywhere: a cycle makes module load order matter and hides which layer owns what. ' +
        'Prisma\'s generated client is excluded (its own files import each other).',
      from: { pathNot: '^prisma/generated/' },
      to: { circular: true, pathNot: '^prisma/generated/' },
    },
    {
      name: 'core-domain-pure',
      severity: 'error',
      comment:
        'core/domain holds pure modules (types, constants, pure functions) that workflows may import: ' +
        'they import nothing outside core/domain (no Node built-ins, no npm packages, no Prisma, no I/O).',
      from: { path: '^core/domain/' },
      to: { pathNot: '^core/domain/' },
    },
    {
      name: 'workflows-deterministic',
      severity: 'error',
      comment:
        'Workflows run in Temporal\'s deterministic sandbox: they import only workflows/, core/domain/, ' +
        '@temporalio/workflow and @temporalio/common — never worker/ (not even types; the activity contract ' +
        'lives in workflows/), other core/ modules, Node built-ins or other packages.',
      from: { path: '^workflows/' },
      to: { pathNot: '^(workflows/|core/domain/|node_modules/@temporalio/(workflow|common)/)' },
    },
    {
      name: 'core-not-presentation',
      severity: 'error',
      comment:
        'core/ (domain services, repositories, database, Temporal client side) knows nothing of its callers: ' +
        'no api/, worker/ or workflows/, and no presentation library (koa, @koa/*, graphql, graphql-yoga, @pothos/*). ' +
        'Services return typed results and throw typed domain errors.',
      from: { path: '^core/' },
      to: { path: ['^(api|worker|workflows)/', '^node_modules/(koa|graphql|graphql-yoga)/', '^node_modules/(@koa|@pothos)/'] },
    },
    {
      name: 'rest-and-graphql-independent',
      severity: 'error',
      comment:
        'api/rest and api/graphql are thin presenters over the same core services; neither imports the other ' +
        '(api/app.ts and api/server.ts compose them).',
      from: { path: '^api/(rest|graphql)/' },
      to: { path: '^api/(rest|graphql)/', pathNot: '^api/$1/' },
    },
    {
      name: 'services-not-presentation',
      severity: 'error',
      comment:
        'api/services return request outcomes (core/domain/outcomes.ts) and throw domain errors; the presenters ' +
        'render them. A service imports neither presenter nor a presentation library.',
      from: { path: '^api/services/' },
      to: { path: ['^api/(rest|graphql)/', '^node_modules/(koa|graphql|graphql-yoga)/', '^node_modules/(@koa|@pothos)/'] },
    },
    {
      name: 'api-not-worker',
      severity: 'error',
      comment: 'The API only writes tasks and starts workflows: it never imports worker/ or workflows/ code.',
      from: { path: '^api/' },
      to: { path: '^(worker|workflows)/' },
    },
    {
      name: 'worker-not-api',
      severity: 'error',
      comment:
        'The worker never imports the API, except api/rest/envelope/: the pure renderer of the task_get envelope, ' +
        'which a postback sends byte for byte (api-spec.md "postback_url").',
      from: { path: '^worker/' },
      to: { path: '^api/', pathNot: '^api/rest/envelope/' },
    },
    {
      name: 'db-made-in-core-db',
      severity: 'error',
      comment:
        'Prisma clients are made only in core/db (createDb / openDatabase), so every part receives the one Db of its ' +
        'process (pool, prepared SQL, usage meter) instead of making a client of its own; elsewhere the generated ' +
        'client is imported for its types only. Tests may wrap clients they build (dbOf).',
      from: { pathNot: '^(core/db/|test/|prisma/generated/)' },
      to: { path: '^prisma/generated/client/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'parser-no-browser',
      severity: 'error',
      comment: 'The parser is a pure function of the page\'s bytes: it never drives the browser (puppeteer-core).',
      from: { path: '^worker/parser/' },
      to: { path: '^node_modules/puppeteer-core/' },
    },
    {
      name: 'bench-not-test',
      severity: 'error',
      comment: 'Benchmarks stand on their own: they never import test/ code (shared tooling lives in scripts/).',
      from: { path: '^bench/' },
      to: { path: '^test/' },
    },
    {
      name: 'dashboard-standalone',
      severity: 'error',
      comment:
        'The dashboard is a browser app over the public GraphQL API: its sources import only dashboard/ and npm packages, ' +
        'never server code (its types come from schema.graphql through dashboard/src/graphql-env.d.ts).',
      from: { path: '^dashboard/src/' },
      to: { pathNot: '^(dashboard/|node_modules/)' },
    },
    {
      name: 'mcp-presenter',
      severity: 'error',
      comment:
        'api/mcp is a presenter like REST and GraphQL over the same services: it imports neither of them except the pure ' +
        'envelope renderer (api/rest/envelope, the stored answer of an idempotency key).',
      from: { path: '^api/mcp/' },
      to: { path: '^api/(rest|graphql)/', pathNot: '^api/rest/envelope/' },
    },
    {
      name: 'sdk-standalone',
      severity: 'error',
      comment:
        'clients/typescript is a package of its own, published apart from the service: it imports only itself, Node built-ins ' +
        'and npm packages (its types come from /openapi.json through src/schema.d.ts).',
      from: { path: '^clients/' },
      to: { pathNot: '^(clients/|node_modules/)', dependencyTypesNot: ['core'] },
    },
    {
      name: 'server-not-dashboard',
      severity: 'error',
      comment: 'No server folder imports dashboard code; the API serves its build output as files (api/dashboard-routes.ts).',
      from: { path: '^(api|core|worker|workflows|replay|scripts|test|bench)/' },
      to: { path: '^dashboard/' },
    },
    {
      name: 'source-not-test',
      severity: 'error',
      comment: 'No source folder imports test/ or bench/ code.',
      from: { path: '^(api|core|worker|workflows|replay|scripts)/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a layer must not even know another's types.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
