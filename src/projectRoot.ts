import fs from 'node:fs';
import path from 'node:path';

/** The directory holding package.json, whether the code runs from src/ (tsx) or from dist/src/. */
export function projectRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}
