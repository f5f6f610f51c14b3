// teksdb-server through ioredis (npm), the Node.js client BullMQ and many
// web applications use, with its defaults: strings and hashes, pipelines,
// MULTI/EXEC and a WATCH conflict, a custom Lua command (defineCommand:
// EVALSHA, falling back to EVAL), pub/sub and pattern messages on a second
// connection, scanStream over 1000 keys, a BRPOP woken by another
// connection's LPUSH, reconnecting after the server restarts, and an ACL user
// logging in with username and password (NOPERM outside its keys, WRONGPASS).
//
// Usage: tests/server/with_node_client.sh DIR tests/server/server_ioredis_test.js PATH/TO/teksdb-server
"use strict";

const { spawn } = require("child_process");
const fs = require("fs");
const net = require("net");
const os = require("os");
const path = require("path");
const Redis = require("ioredis");

let failures = 0;
function check(ok, what) {
  console.log((ok ? "ok: " : "FAIL: ") + what);
  if (!ok) failures++;
}

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function start(binary, dir, port) {
  const proc = spawn(binary, ["--dir", dir, "--port", String(port), "--threads", "2"],
                     { stdio: "ignore" });
  return proc;
}

async function waitUntilUp(port) {
  for (let i = 0; i < 200; i++) {
    try {
      const probe = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0 });
      probe.on("error", () => {});  // not up yet: retried below
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return;
    } catch (e) {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error("server did not start");
}

async function main() {
  const binary = process.argv[2];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "teksdb-ioredis-"));
  const port = await freePort();
  let proc = start(binary, path.join(tmp, "db"), port);
  try {
    await waitUntilUp(port);
    const r = new Redis({ port });
    r.on("error", () => {});  // the restart below: ioredis reconnects

    check((await r.set("greeting", "hello")) === "OK" && (await r.get("greeting")) === "hello",
          "SET and GET");
    await r.hset("user:1", { name: "ada", born: "1815" });
    const user = await r.hgetall("user:1");
    check(user.name === "ada" && user.born === "1815", "HSET object, HGETALL as an object");

    const piped = await r.pipeline().set("p", "1").incr("p").get("p").exec();
    check(JSON.stringify(piped) === JSON.stringify([[null, "OK"], [null, 2], [null, "2"]]),
          "pipeline");
    const tx = await r.multi().set("t", "1").incr("t").exec();
    check(JSON.stringify(tx) === JSON.stringify([[null, "OK"], [null, 2]]), "multi/exec");

    const other = new Redis({ port });
    await r.watch("w");
    await other.set("w", "changed");
    const aborted = await r.multi().set("w", "mine").exec();
    check(aborted === null && (await r.get("w")) === "changed", "WATCH conflict: exec returns null");

    r.defineCommand("addTwice", {
      numberOfKeys: 1,
      lua: "redis.call('incrby', KEYS[1], ARGV[1]) return redis.call('incrby', KEYS[1], ARGV[1])",
    });
    await r.del("lua");
    check((await r.addTwice("lua", 5)) === 10 && (await r.addTwice("lua", 1)) === 12,
          "defineCommand (EVALSHA, EVAL)");

    const subscriber = new Redis({ port });
    const messages = [];
    subscriber.on("message", (channel, message) => messages.push(`${channel}:${message}`));
    subscriber.on("pmessage", (pattern, channel, message) => messages.push(`${pattern}|${channel}:${message}`));
    await subscriber.subscribe("news");
    await subscriber.psubscribe("jobs.*");
    check((await r.publish("news", "a")) === 1 && (await r.publish("jobs.1", "b")) === 1, "publish");
    for (let i = 0; i < 100 && messages.length < 2; i++) await new Promise((res) => setTimeout(res, 20));
    check(JSON.stringify(messages) === JSON.stringify(["news:a", "jobs.*|jobs.1:b"]),
          `subscribe and psubscribe deliver (${messages})`);
    subscriber.disconnect();

    const pipe = r.pipeline();
    for (let i = 0; i < 1000; i++) pipe.set(`scan:${i}`, i);
    await pipe.exec();
    const seen = new Set();
    await new Promise((resolve, reject) => {
      r.scanStream({ match: "scan:*", count: 100 })
        .on("data", (keys) => keys.forEach((k) => seen.add(k)))
        .on("end", resolve)
        .on("error", reject);
    });
    check(seen.size === 1000, `scanStream finds 1000 keys (${seen.size})`);

    const waiting = other.brpop("queue", 5);
    await new Promise((res) => setTimeout(res, 100));
    await r.lpush("queue", "job");
    const popped = await waiting;
    check(JSON.stringify(popped) === JSON.stringify(["queue", "job"]), "BRPOP woken by LPUSH");
    other.disconnect();

    proc.kill("SIGKILL");
    await new Promise((res) => proc.on("exit", res));
    proc = start(binary, path.join(tmp, "db"), port);
    let after = null;
    for (let i = 0; i < 100 && after === null; i++) {
      try {
        after = await r.get("greeting");
      } catch (e) {
        await new Promise((res) => setTimeout(res, 100));
      }
    }
    check(after === "hello", "reconnects after a restart; the data kept");

    // An ACL user, logged in as ioredis does with username and password.
    await r.call("ACL", "SETUSER", "app", "reset", "on", ">app-secret", "~app:*", "+@read", "+@write",
                 "-@dangerous", "+ping", "+acl|whoami");
    const app = new Redis({ port, username: "app", password: "app-secret" });
    check((await app.call("ACL", "WHOAMI")) === "app", "logged in as an ACL user");
    check((await app.set("app:1", "x")) === "OK" && (await app.get("app:1")) === "x", "its own keys");
    let denied = "";
    try {
      await app.set("other", "x");
    } catch (e) {
      denied = e.message;
    }
    check(denied.startsWith("NOPERM"), `NOPERM for a key outside its pattern (${denied})`);
    app.disconnect();
    const wrong = new Redis({ port, username: "app", password: "nope", maxRetriesPerRequest: 0,
                              retryStrategy: () => null, lazyConnect: true });
    // (ioredis reports a refused AUTH as an "error" event.)
    let refused = "";
    wrong.on("error", (e) => { refused = e.message; });
    try {
      await wrong.connect();
      await wrong.ping();
    } catch (e) {
      refused = refused || e.message;
    }
    check(refused.includes("WRONGPASS"), `WRONGPASS for a wrong password (${refused})`);
    wrong.disconnect();
    r.disconnect();
  } finally {
    proc.kill("SIGKILL");
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  console.log(`server_ioredis: ${failures} failure(s)`);
  process.exit(failures ? 1 : 0);
}

main().catch((e) => {
  console.log(`FAIL: ${e.stack}`);
  process.exit(1);
});
