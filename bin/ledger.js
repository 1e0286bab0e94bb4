#!/usr/bin/env node
import { runCli } from '../dist/node/cli/main.js';

await runCli();
