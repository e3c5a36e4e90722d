/** Structured logs: one JSON object per line on stdout, with a timestamp and an event name. */
export type Log = (event: string, fields?: Record<string, unknown>) => void;

export function jsonLog(write: (line: string) => void = (line) => process.stdout.write(line + '\n')): Log {
  return (event, fields = {}) => write(JSON.stringify({ ts: new Date().toISOString(), event, ...fields }));
}

export const silentLog: Log = () => {};
