#!/usr/bin/env python3
"""teksdb-server's blocking commands (BLPOP BRPOP BRPOPLPUSH BLMOVE BLMPOP
BZPOPMIN BZPOPMAX BZMPOP) across connections and time, where the
differential test's single stream cannot reach:
  - a blocked client is woken by another's push and gets the element;
    replies of commands pipelined after it follow it;
  - a job queue: 4 consumers in BLPOP/BRPOPLPUSH loops, 2 producers, 2000
    jobs: every job consumed exactly once;
  - the timeout: a null reply after it, not before;
  - a client that closes while blocked takes nothing: the element pushed
    after it stays in the list;
  - a key that becomes another type keeps the client blocked (as Redis);
    a sorted set push wakes BZPOPMIN.

Usage: server_blocking_test.py PATH/TO/teksdb-server
"""

import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from server_checks import Checks  # noqa: E402
from resp_client import Client  # noqa: E402

checks = Checks("server_blocking")
check = checks.check


def wake_and_pipeline(port):
    c, other = Client(port), Client(port)
    c.sock.sendall(c.encode(["BLPOP", "q1", "q2", "0"]) + c.encode(["PING"]))
    time.sleep(0.2)
    other.command("RPUSH", "q2", "job")
    check(c.reply() == (b"*", [(b"$", b"q2"), (b"$", b"job")]) and c.reply() == (b"+", b"PONG"),
          "BLPOP woken by another client's RPUSH; the pipelined PING answered after it")
    c.sock.sendall(c.encode(["BZPOPMIN", "z", "0"]))
    time.sleep(0.1)
    other.command("ZADD", "z", "3", "m")
    check(c.reply() == (b"*", [(b"$", b"z"), (b"$", b"m"), (b"$", b"3")]), "BZPOPMIN woken by ZADD")
    c.sock.sendall(c.encode(["BLMOVE", "src", "dst", "RIGHT", "LEFT", "0"]))
    time.sleep(0.1)
    other.command("LPUSH", "src", "moved")
    check(c.reply() == (b"$", b"moved") and other.command("LRANGE", "dst", "0", "-1") ==
          (b"*", [(b"$", b"moved")]), "BLMOVE woken, the element moved")


def job_queue(port):
    total, consumers, producers = 2000, 4, 2
    got = []
    lock = threading.Lock()

    def consume(i):
        c = Client(port)
        while True:
            reply = (c.command("BLPOP", "jobs", "2") if i % 2 == 0 else
                     c.command("BRPOPLPUSH", "jobs", f"done{i}", "2"))
            if reply[1] is None:
                return
            with lock:
                got.append(reply[1][1][1] if reply[0] == b"*" else reply[1])

    def produce(i):
        c = Client(port)
        for j in range(total // producers):
            c.command("RPUSH", "jobs", f"{i}:{j}")
    threads = [threading.Thread(target=consume, args=(i,)) for i in range(consumers)]
    threads += [threading.Thread(target=produce, args=(i,)) for i in range(producers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    want = sorted(f"{i}:{j}".encode() for i in range(producers) for j in range(total // producers))
    check(sorted(got) == want,
          f"{total} jobs, {consumers} blocking consumers: each consumed once ({len(got)} got)")


def timeout(port):
    c = Client(port)
    began = time.time()
    got = c.command("BRPOP", "never", "0.3")
    took = time.time() - began
    check(got == (b"*", None) and 0.29 <= took < 5, f"BRPOP times out with a null array ({took:.2f} s)")
    began = time.time()
    got = c.command("BZMPOP", "0.2", "1", "never", "MIN")
    took = time.time() - began
    check(got == (b"*", None) and 0.19 <= took < 5, f"BZMPOP times out ({took:.2f} s)")


def closed_while_blocked(port):
    c, other = Client(port), Client(port)
    c.sock.sendall(c.encode(["BLPOP", "orphan", "0"]))
    time.sleep(0.2)
    c.sock.close()
    time.sleep(0.3)
    other.command("RPUSH", "orphan", "keep me")
    time.sleep(0.3)
    check(other.command("LRANGE", "orphan", "0", "-1") == (b"*", [(b"$", b"keep me")]),
          "a client that closed while blocked takes nothing")


def other_type(port):
    c, other = Client(port), Client(port)
    c.sock.sendall(c.encode(["BLPOP", "shifty", "0"]))
    time.sleep(0.1)
    other.command("SET", "shifty", "a string")
    time.sleep(0.2)
    other.command("DEL", "shifty")
    other.command("RPUSH", "shifty", "at last")
    check(c.reply() == (b"*", [(b"$", b"shifty"), (b"$", b"at last")]),
          "a key turned into a string keeps BLPOP blocked; the list after it serves it")


def main():
    return checks.run_parts("teksdb-blocking-", (wake_and_pipeline, job_queue, timeout, closed_while_blocked, other_type))


if __name__ == "__main__":
    sys.exit(main())
