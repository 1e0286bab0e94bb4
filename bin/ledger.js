#!/usr/bin/env node
import { runCli } from '../dist/node/cli/main.js';
import { availablePlugins } from '../dist/plugins/index.js';

await runCli(undefined, availablePlugins());
