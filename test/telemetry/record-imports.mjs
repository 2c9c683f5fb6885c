// Preloaded into a child (`NODE_OPTIONS=--import …`): records every module specifier it resolves
// through ESM that names an OpenTelemetry package, one a line, in the file IMPORTS_FILE names.
import { register } from 'node:module';
import process from 'node:process';

register('./record-imports-hooks.mjs', import.meta.url, { data: { file: process.env.IMPORTS_FILE } });
