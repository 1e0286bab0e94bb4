// Copies the browser files that tsc does not emit into dist/: every `static` folder under
// plugins/ (the KYC hosted page and dashboard, the relay console) and the explorer's web app.
// A new plugin page needs only a folder named `static`. Usage: node scripts/copy-static.mjs
import { cpSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

function staticFolders(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    if (entry.name === 'static') found.push(path);
    else found.push(...staticFolders(path));
  }
  return found;
}

for (const source of [...staticFolders(join(root, 'plugins')), join(root, 'plugins', 'explorer', 'web')]) {
  cpSync(source, join(root, 'dist', relative(root, source)), { recursive: true });
}
