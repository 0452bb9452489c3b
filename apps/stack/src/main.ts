#!/usr/bin/env node
// `npm start` — see stack.ts.
import { runStack } from './stack';

void runStack();
