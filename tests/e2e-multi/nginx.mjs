// nginx for the several-instances browser test: the deployment's own config
// (deploy/nginx.conf, the one docs/DEPLOY.md documents) with this test's addresses, inside
// a throw-away prefix (config, logs, temporary files) on a free port on 127.0.0.1. Works
// as root (as in CI) and as any other user; nothing outside the prefix is touched.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ROOT } from '../e2e/helpers.mjs';

export const DEPLOY_CONF = join(ROOT, 'deploy', 'nginx.conf');

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function replaceOnce(text, pattern, replacement, what) {
  const found = text.match(new RegExp(pattern.source, `${pattern.flags}g`)) ?? [];
  if (found.length !== 1) throw new Error(`deploy/nginx.conf: expected one ${what}, found ${found.length}`);
  return text.replace(pattern, replacement);
}

/**
 * deploy/nginx.conf with its two upstream servers replaced by `upstreams` ("host:port")
 * and its `listen 80` by `listen`. Fails if the file no longer has those lines, so the
 * test cannot drift from the documented config.
 */
export function renderDeployConf(upstreams, listen) {
  let conf = readFileSync(DEPLOY_CONF, 'utf8');
  const servers = conf.match(/^\s*server 10\.0\.0\.\d+:8080 /gm) ?? [];
  if (servers.length !== upstreams.length) {
    throw new Error(`deploy/nginx.conf: ${servers.length} upstream servers, the test has ${upstreams.length}`);
  }
  upstreams.forEach((addr, i) => {
    conf = replaceOnce(conf, new RegExp(`server 10\\.0\\.0\\.${11 + i}:8080 `), `server ${addr} `, `upstream 10.0.0.${11 + i}`);
  });
  return replaceOnce(conf, /^(\s*)listen 80;/m, `$1listen ${listen};`, '`listen 80;`');
}

export function nginxBin() {
  if (process.env.NGINX) return process.env.NGINX;
  return existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';
}

/**
 * Starts nginx in the foreground on 127.0.0.1:`port` with the rendered deploy config in
 * front of `upstreams`; resolves once `/api/health` answers through it. Returns its URL, a way to read its error
 * log, and `close()`, which stops it and removes the prefix.
 */
export async function startNginx(upstreams, port) {
  const prefix = mkdtempSync(join(tmpdir(), 'mill-nginx-'));
  mkdirSync(join(prefix, 'tmp'));
  writeFileSync(join(prefix, 'mill.conf'), renderDeployConf(upstreams, `127.0.0.1:${port}`));
  const asRoot = process.getuid?.() === 0;
  const tmp = (name) => `${name}_temp_path ${join(prefix, 'tmp', name)};`;
  writeFileSync(
    join(prefix, 'nginx.conf'),
    [
      'daemon off;',
      'worker_processes 1;',
      // As root the workers would become `nobody`, who cannot enter this private prefix.
      asRoot ? 'user root root;' : '',
      `pid ${join(prefix, 'nginx.pid')};`,
      `error_log ${join(prefix, 'error.log')} notice;`,
      'events { worker_connections 256; }',
      'http {',
      `  access_log ${join(prefix, 'access.log')};`,
      `  ${tmp('client_body')} ${tmp('proxy')} ${tmp('fastcgi')} ${tmp('uwsgi')} ${tmp('scgi')}`,
      `  include ${join(prefix, 'mill.conf')};`,
      '}',
      '',
    ].join('\n'),
  );
  const child = spawn(nginxBin(), ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'error.log')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const errorLog = () => {
    const file = join(prefix, 'error.log');
    const access = join(prefix, 'access.log');
    return [stderr, file, access].map((f) => (f !== stderr ? (existsSync(f) ? readFileSync(f, 'utf8') : '') : f)).join('');
  };
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}):\n${errorLog()}`);
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not answer on ${url}:\n${errorLog()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    errorLog,
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}
