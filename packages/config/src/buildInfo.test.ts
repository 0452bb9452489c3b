import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildInfo } from './buildInfo';

describe('buildInfo', () => {
  const version = (JSON.parse(readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as { version: string }).version;

  it("is the package's version and the commit SVC_GIT_COMMIT names", () => {
    expect(buildInfo({ SVC_GIT_COMMIT: 'ABCDEF1234' })).toEqual({ version, commit: 'abcdef1234' });
  });

  it('has no commit when none, or no commit id, was given', () => {
    expect(buildInfo({})).toEqual({ version, commit: null });
    expect(buildInfo({ SVC_GIT_COMMIT: 'not a commit; rm -rf' })).toEqual({ version, commit: null });
  });
});
