/**
 * The baseline of bench:http: a bare uWebSockets.js server that answers every request with `hello`, run
 * as its own process and loaded by wrk exactly like the order server. PORT and HOST from the environment;
 * it prints one JSON line `{"event":"listening","port":…}` when it accepts connections, like shell/server.ts.
 */
import uWS from 'uWebSockets.js';

const host = process.env['HOST'] ?? '127.0.0.1';
const port = Number(process.env['PORT'] ?? '0');

const app = uWS.App().any('/*', (res) => {
  // A POST's body is not read: uWS discards it when the response ends before onData is attached.
  res.end('hello');
});
app.listen(host, port, (socket) => {
  if (socket === false) {
    console.error(`cannot listen on ${host}:${port}`);
    process.exit(1);
  }
  const bound = uWS.us_socket_local_port(socket as unknown as uWS.us_socket);
  process.stdout.write(JSON.stringify({ ts: new Date().toISOString(), event: 'listening', host, port: bound }) + '\n');
});
process.once('SIGTERM', () => process.exit(0));
