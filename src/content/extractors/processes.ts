import { execFile } from 'node:child_process';
import { setPriority } from 'node:os';
import { ExtractionError } from './extraction.js';

/** Largest standard output a tool may write (a version's text is far smaller after CONTENT_MAX_CHARS). */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Tools yield the CPU to the API (nice 10). */
const TOOL_NICENESS = 10;

/**
 * What a tool sees of the environment: no secrets; one thread each (tesseract's OpenMP would
 * otherwise take every core), CONTENT_WORKERS bounds how many run at once.
 */
const TOOL_ENVIRONMENT = Object.fromEntries(
  Object.entries({
    PATH: process.env.PATH,
    TESSDATA_PREFIX: process.env.TESSDATA_PREFIX,
    OMP_THREAD_LIMIT: '1',
  }).filter(([, value]) => value !== undefined),
);

/**
 * Runs a tool (pdftotext, pdftoppm, tesseract) as a child process, killed at `deadline`
 * (performance.now() milliseconds); answers its standard output. A tool that fails or runs out
 * of time ends the extraction as failed, with a reason that names the tool only.
 */
export function runTool(command: string, args: string[], deadline: number): Promise<Buffer> {
  const timeout = Math.floor(deadline - performance.now());
  if (timeout <= 0) return Promise.reject(new ExtractionError('failed', 'Reading the file took too long.'));
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      args,
      {
        timeout,
        killSignal: 'SIGKILL',
        maxBuffer: MAX_OUTPUT_BYTES,
        encoding: 'buffer',
        windowsHide: true,
        env: TOOL_ENVIRONMENT,
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        if (error.killed || (error as { signal?: string }).signal === 'SIGKILL') {
          return reject(new ExtractionError('failed', 'Reading the file took too long.'));
        }
        const said =
          stderr
            .toString('utf8')
            .split('\n')
            .find((line) => line.trim() !== '') ?? '';
        reject(
          new ExtractionError('failed', `${command} could not read the file${said ? `: ${said.slice(0, 200)}` : ''}.`),
        );
      },
    );
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, TOOL_NICENESS);
      } catch {
        // Gone already, or not allowed here: it runs at normal priority.
      }
    }
  });
}

/** Whether `command` can be run here (OCR_ENABLED's default). */
export function toolAvailable(command: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(command, ['--version'], { timeout: 10_000 }, (error) => resolve(!error));
  });
}
