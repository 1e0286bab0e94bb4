#!/usr/bin/env node
import { runCli } from '../dist/node/cli/main.js';
import { PLUGINS } from '../dist/plugins/index.js';

await runCli(undefined, PLUGINS);
