/** Jest in ESM mode (jose is ESM only); TypeScript through @swc/jest. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'es6' } }],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // The browser suite needs Chromium: its own run (jest.browser.config.js, `npm run test:browser`).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/browser/'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
  // Node never frees a test file's ES modules (vm.SourceTextModule, nodejs/node#59118): a worker's
  // heap grows by each file's module graph, and a worker that ran half the suite takes longer than
  // jest's 500 ms to exit (its environment cleanup destroys every module), so jest killed it and
  // warned of a leak. A worker over this limit between files is replaced by a fresh one.
  workerIdleMemoryLimit: '1GB',
};
