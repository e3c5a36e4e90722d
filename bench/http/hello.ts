/**
 * The baseline of bench:http: a bare uWebSockets.js server that answers every request with `hello`, run
 * as its own process and loaded by wrk exactly like the order server. PORT and HOST from the environment;
 * it prints one JSON line `{"event":"listening","port":…}` when it accepts connections, like shell/server.ts.
 */
import uWS from 'uWebSockets.js';
import { listenAndAnnounce } from '../listen.ts';


const app = uWS.App().any('/*', (res) => {
  // A POST's body is not read: uWS discards it when the response ends before onData is attached.
  res.end('hello');
});
listenAndAnnounce(app);
