/** The browser suite (`npm run test:browser`): test/browser only, in Debian's Chromium, on the same set-up. */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['<rootDir>/test/browser/**/*.browser.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
};
