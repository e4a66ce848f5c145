// The logger seam: a minimal interface so callers can route Mnemo's few log lines anywhere.

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

/** Logs to standard error, so command output on standard output stays clean. */
export const consoleLogger: Logger = {
  info: (message) => console.error(`[mnemo] ${message}`),
  warn: (message) => console.error(`[mnemo] warning: ${message}`),
};

/** Discards everything. */
export const silentLogger: Logger = { info: () => {}, warn: () => {} };

/**
 * A logger that says each distinct message once, however often it is called.
 *
 * @example
 * ```ts
 * const log = onceLogger(consoleLogger);
 * log.warn('embedder down'); log.warn('embedder down'); // printed once
 * ```
 */
export function onceLogger(inner: Logger): Logger {
  const seen = new Set<string>();
  const once = (level: 'info' | 'warn') => (message: string) => {
    if (seen.has(`${level}:${message}`)) return;
    seen.add(`${level}:${message}`);
    inner[level](message);
  };
  return { info: once('info'), warn: once('warn') };
}
