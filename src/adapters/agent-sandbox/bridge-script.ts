/**
 * The program that runs first inside the agent's sandbox (with the host's
 * node): it listens on the sandbox's own 127.0.0.1, pipes each connection to
 * the model proxy's Unix socket (bound in from outside), then starts the
 * agent with its model base URL pointing at that port and relays its exit.
 * The sandbox has no other network: its loopback is its own.
 *
 * Arguments: `<socket> <URL variable> <base path> -- <program> [args…]`.
 */
export const BRIDGE_SCRIPT = `
import net from 'node:net';
import { spawn } from 'node:child_process';
const [socketPath, urlVariable, basePath, separator, ...argv] = process.argv.slice(2);
if (separator !== '--' || argv.length === 0) {
  process.stderr.write('sandbox bridge: usage: <socket> <URL variable> <base path> -- <program> [args...]\\n');
  process.exit(2);
}
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  const end = () => { client.destroy(); upstream.destroy(); };
  client.on('error', end);
  upstream.on('error', end);
  client.pipe(upstream);
  upstream.pipe(client);
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const env = { ...process.env, [urlVariable]: 'http://127.0.0.1:' + port + basePath };
  const child = spawn(argv[0], argv.slice(1), { stdio: 'inherit', env });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => {
    process.stderr.write('sandbox bridge: cannot start ' + argv[0] + ': ' + error.message + '\\n');
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    server.close();
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
});
`;
