/**
 * How the benches' bare uWS servers (hello-world, the bare publish loop) start: listen on HOST:PORT (PORT 0
 * picks a free one), announce the bound port as one JSON line on stdout as the order server does, and exit
 * on SIGTERM.
 */
import uWS from 'uWebSockets.js';

export function listenAndAnnounce(app: uWS.TemplatedApp): void {
  const host = process.env['HOST'] ?? '127.0.0.1';
  const port = Number(process.env['PORT'] ?? '0');
  app.listen(host, port, (socket) => {
    if (socket === false) {
      console.error(`cannot listen on ${host}:${port}`);
      process.exit(1);
    }
    const bound = uWS.us_socket_local_port(socket as unknown as uWS.us_socket);
    process.stdout.write(JSON.stringify({ ts: new Date().toISOString(), event: 'listening', host, port: bound }) + '\n');
  });
  process.once('SIGTERM', () => process.exit(0));
}
