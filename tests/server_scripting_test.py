#!/usr/bin/env python3
"""teksdb-server's scripts (EVAL, server/script_engine.h) across clients and
limits, where the differential test's single stream cannot reach:
  - atomicity: a script that INCRs two keys is never seen half done by a
    reader's MGET, and 4 clients running a read-modify-write script 200
    times each lose no update;
  - limits: a script that never ends is stopped after the time limit with
    an error (other clients' reads go on meanwhile, and writes after it),
    one that allocates without bound gets "not enough memory", and the
    server serves on.

Usage: server_scripting_test.py PATH/TO/teksdb-server
"""

import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_checks import Checks  # noqa: E402
from server_redis_differential_test import Client, free_port  # noqa: E402

checks = Checks("server_scripting")
check = checks.check

BOTH = "redis.call('incr', KEYS[1]) return redis.call('incr', KEYS[2])"
READ_MODIFY_WRITE = ("local v = tonumber(redis.call('get', KEYS[1]) or '0') "
                     "return redis.call('set', KEYS[1], tostring(v + 1))")


def atomicity(port):
    c, reader = Client(port), Client(port)
    c.command("MSET", "a", "0", "b", "0")
    stop, torn = threading.Event(), []

    def read():
        while not stop.is_set():
            a, b = reader.command("MGET", "a", "b")[1]
            if a != b:
                torn.append((a, b))
    t = threading.Thread(target=read)
    t.start()
    for _ in range(300):
        c.command("EVAL", BOTH, "2", "a", "b")
    stop.set()
    t.join()
    check(not torn and c.command("GET", "b") == (b"$", b"300"),
          f"300 scripts INCRing two keys never seen half done ({torn[:3]})")

    def work():
        w = Client(port)
        for _ in range(200):
            w.command("EVAL", READ_MODIFY_WRITE, "1", "counter")
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = Client(port).command("GET", "counter")
    check(got == (b"$", b"800"), f"4 clients x 200 read-modify-write scripts: 800 ({got})")


def limits(port):
    c, other = Client(port), Client(port)
    other.command("SET", "before", "1")
    result = {}

    def endless():
        began = time.time()
        result["reply"] = c.command("EVAL", "while true do end", "0")
        result["took"] = time.time() - began
    t = threading.Thread(target=endless)
    t.start()
    time.sleep(0.5)
    began = time.time()
    read = other.command("GET", "before")
    check(read == (b"$", b"1") and time.time() - began < 1,
          "a read goes on while a script runs")
    t.join()
    check(result["reply"][0] == b"-" and b"ran longer than" in result["reply"][1] and
          result["took"] < 30, f"an endless script is stopped ({result['took']:.1f} s): {result['reply']}")
    check(other.command("SET", "after", "1") == (b"+", b"OK"), "writes go on after it")
    got = c.command("EVAL", "return string.rep('x', 2000000000)", "0")
    check(got[0] == b"-" and b"not enough memory" in got[1], f"an unbounded allocation fails ({got})")
    check(c.command("EVAL", "return 'still here'", "0") == (b"$", b"still here"), "scripts run on")


def main():
    server_bin = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="teksdb-scripting-")
    port = free_port()
    log = open(os.path.join(tmp, "server.log"), "w")
    proc = subprocess.Popen([server_bin, "--dir", os.path.join(tmp, "db"), "--port", str(port),
                             "--threads", "2"], stdout=log, stderr=log)
    checks.logs.append(log.name)
    try:
        Client(port).command("PING")
        for part in (atomicity, limits):
            part(port)
    finally:
        proc.kill()
        proc.wait()
    return checks.finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
