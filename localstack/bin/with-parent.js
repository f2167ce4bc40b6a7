#!/usr/bin/env node
// Runs a Node script in this process and exits as soon as a given parent process is gone.
//
// Usage: node with-parent.js <parentPid> <script.js> [args...]
//
// Environment: WITH_PARENT_TERM_GRACE_MS=<ms> limits how long the target may take to shut down
// after SIGTERM (0: exit at once) before this process exits anyway. kinesis-mock, for instance,
// waits for idle keep-alive connections to close, which can take half a minute. Unset, SIGTERM is
// left to the target.
//
// The local AWS stack (dev.sluice.localstack.LocalAws) starts kinesis-mock and dynalite through
// this watchdog so that they die within about a second even when the JVM that started them is
// killed with SIGKILL and cannot clean up after itself.
'use strict';

const path = require('path');

const POLL_MILLIS = 500;

// Captured before the target runs: cats-effect (kinesis-mock) replaces process.exit with a
// graceful exit that waits for open connections.
const realExit = process.exit.bind(process);

function usage(message) {
  process.stderr.write(`with-parent: ${message}\n`);
  process.stderr.write('usage: node with-parent.js <parentPid> <script.js> [args...]\n');
  realExit(64);
}

const [, , pidArg, script, ...args] = process.argv;
const parentPid = Number(pidArg);
if (!Number.isInteger(parentPid) || parentPid <= 1) {
  usage(`not a parent pid: ${pidArg}`);
}
if (!script) {
  usage('no script given');
}

// When the parent is our direct parent, being re-parented (to init or a subreaper) is the most
// reliable sign that it is gone, even if its pid has been reused in the meantime.
const directChild = process.ppid === parentPid;

function parentAlive() {
  if (directChild && process.ppid !== parentPid) {
    return false;
  }
  try {
    process.kill(parentPid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return e.code === 'EPERM';
  }
}

if (!parentAlive()) {
  process.stderr.write(`with-parent: parent ${parentPid} is not running, not starting ${script}\n`);
  realExit(70);
}

// unref(): the watchdog alone must not keep Node running once the target script is done.
setInterval(() => {
  if (!parentAlive()) {
    process.stderr.write(`with-parent: parent ${parentPid} is gone, exiting\n`);
    realExit(143);
  }
}, POLL_MILLIS).unref();

const grace = process.env.WITH_PARENT_TERM_GRACE_MS;
delete process.env.WITH_PARENT_TERM_GRACE_MS;
if (grace !== undefined && grace !== '') {
  const graceMillis = Number(grace);
  if (!Number.isInteger(graceMillis) || graceMillis < 0) {
    usage(`WITH_PARENT_TERM_GRACE_MS must be a whole number of milliseconds: ${grace}`);
  }
  process.on('SIGTERM', function onTerm() {
    // Without a handler of its own the target would have died at once: do the same.
    if (graceMillis === 0 || process.listenerCount('SIGTERM') === 1) {
      realExit(143);
    }
    setTimeout(() => {
      process.stderr.write(`with-parent: still running ${graceMillis} ms after SIGTERM, exiting\n`);
      realExit(143);
    }, graceMillis).unref();
  });
}

// Environment: WITH_PARENT_LISTEN_HOST=<address> makes every TCP server the target opens listen on
// that address when it asks for all interfaces (no host, 0.0.0.0 or ::). kinesis-mock has no setting
// for its bind address (it listens on all interfaces), and the local stack must be reachable from
// this machine only.
const listenHost = process.env.WITH_PARENT_LISTEN_HOST;
delete process.env.WITH_PARENT_LISTEN_HOST;
if (listenHost !== undefined && listenHost !== '') {
  const net = require('net');
  const listen = net.Server.prototype.listen;
  const wildcard = (host) => host === undefined || host === null || host === '' || host === '0.0.0.0' || host === '::';
  net.Server.prototype.listen = function boundListen(...args) {
    const first = args[0];
    if (first !== null && typeof first === 'object' && !Array.isArray(first) && first.path === undefined
        && first.fd === undefined && first._handle === undefined && first.handle === undefined) {
      if (wildcard(first.host)) {
        args[0] = Object.assign({}, first, { host: listenHost });
      }
    } else if (typeof first === 'number' || (typeof first === 'string' && /^[0-9]+$/.test(first))) {
      if (typeof args[1] !== 'string' || wildcard(args[1])) {
        // listen(port[, backlog][, callback]) -> listen(port, host[, backlog][, callback])
        args.splice(1, typeof args[1] === 'string' ? 1 : 0, listenHost);
      }
    }
    return listen.apply(this, args);
  };
}

// The target sees the command line it would have seen when run directly.
const target = path.resolve(script);
process.argv = [process.argv[0], target, ...args];
require(target);
