#!/usr/bin/env node
// The `quire` admin CLI: runs src/cli.ts through tsx's loader (the project ships TypeScript).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
