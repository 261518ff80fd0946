import { describe, expect, it } from 'vitest';
import { runTool } from './processes.js';

describe('runTool', () => {
  it('gives a tool no secret of the service and one thread', async () => {
    process.env.JWT_SECRET_FOR_THIS_TEST = 'not-for-tools';
    try {
      const seen = (await runTool('env', [], performance.now() + 10_000)).toString('utf8').split('\n');
      expect(seen).toContain('OMP_THREAD_LIMIT=1');
      expect(seen.some((line) => line.startsWith('PATH='))).toBe(true);
      expect(seen.some((line) => line.includes('not-for-tools'))).toBe(false);
    } finally {
      delete process.env.JWT_SECRET_FOR_THIS_TEST;
    }
  });

  it('ends a tool that fails as a failed extraction naming the tool only', async () => {
    await expect(runTool('sh', ['-c', 'echo oops >&2; exit 3'], performance.now() + 10_000)).rejects.toMatchObject({
      message: 'sh could not read the file: oops.',
    });
  });
});
