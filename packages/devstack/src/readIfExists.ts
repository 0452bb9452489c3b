import { readFileSync } from 'node:fs';

/** The file's text, or null when it does not exist; any other error is thrown. */
export function readIfExists(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
