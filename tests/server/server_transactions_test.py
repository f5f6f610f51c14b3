#!/usr/bin/env python3
"""teksdb-server's transactions (server/commands/transaction_commands.cc) under
concurrency and time, where the differential test's single stream cannot
reach:
  - isolation: while 3 clients INCR a counter, transactions
    MULTI / GET / INCR / GET / EXEC read it twice with their own INCR and
    nothing else in between;
  - atomic visibility: MULTI / INCR a / INCR b / EXEC, pipelined with other
    writes, is never seen half done by a reader's MGET;
  - WATCH: EXEC answers nil after another client's write, DEL, EXPIRE to a
    past time or FLUSHALL of a watched key, after the key reached its
    expiry time since WATCH, and after the background sweep deleted it;
    not after writes of other keys, nor when the watched key was already
    expired at WATCH and the sweep then removed it (Redis 7.0's rule);
  - FLUSHALL inside EXEC among other writes, and a 1000-command
    transaction touching 1000 keys.

Usage: server_transactions_test.py PATH/TO/teksdb-server
"""

import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from server_checks import Checks  # noqa: E402
from resp_client import Client  # noqa: E402

checks = Checks("server_transactions")
check = checks.check
NIL_ARRAY = (b"*", None)


def exec_after_watch(c, other, key, action):
    """WATCH key, `action` (by another client, or a sleep), MULTI, SET,
    EXEC: EXEC's reply."""
    c.command("WATCH", key)
    action(other)
    c.command("MULTI")
    c.command("SET", "watch-result", "ran")
    return c.command("EXEC")


def expired_keys(c):
    """INFO's count of keys the background sweep deleted."""
    for line in c.command("INFO", "stats")[1].decode().split("\r\n"):
        if line.startswith("expired_keys:"):
            return int(line.split(":")[1])
    raise AssertionError("INFO stats has no expired_keys")


def isolation(port):
    stop = threading.Event()

    def incr():
        other = Client(port)
        while not stop.is_set():
            other.command("INCR", "counter")
    threads = [threading.Thread(target=incr) for _ in range(3)]
    for t in threads:
        t.start()
    c = Client(port)
    bad = []
    for _ in range(300):
        replies = c.pipeline([["MULTI"], ["GET", "counter"], ["INCR", "counter"], ["GET", "counter"],
                              ["EXEC"]])
        kind, results = replies[-1]
        first = int(results[0][1] or 0)
        if kind != b"*" or int(results[1][1]) != first + 1 or int(results[2][1]) != first + 1:
            bad.append(results)
    stop.set()
    for t in threads:
        t.join()
    check(not bad, f"300 transactions among 3 INCRing clients see only their own INCR ({bad[:2]})")


def atomic_visibility(port):
    c, reader = Client(port), Client(port)
    c.command("MSET", "a", "0", "b", "0")
    stop = threading.Event()
    torn = []

    def read():
        while not stop.is_set():
            a, b = reader.command("MGET", "a", "b")[1]
            if a != b:
                torn.append((a, b))
    t = threading.Thread(target=read)
    t.start()
    for i in range(500):
        c.pipeline([["SET", f"before{i % 7}", "x"], ["MULTI"], ["INCR", "a"], ["INCR", "b"], ["EXEC"],
                    ["SET", f"after{i % 7}", "y"]])
    stop.set()
    t.join()
    check(not torn and c.command("GET", "a") == (b"$", b"500"),
          f"500 pipelined MULTI/INCR a/INCR b/EXEC never seen half done ({torn[:3]})")


def watch(port):
    c, other = Client(port), Client(port)
    other.command("SET", "w", "1")
    cases = [
        ("another client's SET", lambda o: o.command("SET", "w", "2"), NIL_ARRAY),
        ("another client's DEL", lambda o: o.command("DEL", "w"), NIL_ARRAY),
        ("a write of another key", lambda o: o.command("SET", "unwatched", "x"), None),
        ("another client's EXPIRE to a past time",
         lambda o: (o.command("SET", "w", "1"), o.command("PEXPIREAT", "w", "1")), NIL_ARRAY),
        ("another client's FLUSHALL", lambda o: (o.command("SET", "w", "1"), o.command("FLUSHALL")),
         NIL_ARRAY),
    ]
    for name, action, want in cases:
        got = exec_after_watch(c, other, "w", action)
        ok = got == want if want else got == (b"*", [(b"+", b"OK")])
        check(ok, f"WATCH, then {name}: EXEC answers {'nil' if want else 'its replies'} ({got})")
    # Expiry reached after WATCH, read before the sweep could run, and after
    # the sweep deleted the key.
    for wait, name in ((0.15, "reached its expiry"), (1.5, "was swept")):
        other.command("SET", "w", "1", "PX", "100")
        got = exec_after_watch(c, other, "w", lambda o: time.sleep(wait))
        check(got == NIL_ARRAY, f"WATCH a live key that then {name}: EXEC answers nil ({got})")
    # Already expired when watched: its removal by the sweep changes nothing.
    # (The sweep may also come before WATCH: then nothing is there to change.)
    swept_before = expired_keys(other)
    other.command("SET", "w", "1", "PX", "1")
    time.sleep(0.01)

    def until_swept(o):
        deadline = time.time() + 20
        while expired_keys(o) == swept_before and time.time() < deadline:
            time.sleep(0.05)
    got = exec_after_watch(c, other, "w", until_swept)
    check(expired_keys(other) > swept_before, "the sweep deleted the expired watched key")
    check(got == (b"*", [(b"+", b"OK")]),
          f"WATCH a key already expired, then swept: EXEC runs ({got})")
    c.command("WATCH", "w")
    c.command("UNWATCH")
    other.command("SET", "w", "3")
    c.command("MULTI")
    check(c.command("EXEC") == (b"*", []), "UNWATCH forgets the key")
    c.command("SADD", "smove-src", "a", "b")
    c.command("SADD", "smove-dst", "a")
    got = exec_after_watch(c, other, "smove-dst", lambda o: o.command("SMOVE", "smove-src", "smove-dst", "a"))
    check(got == (b"*", [(b"+", b"OK")]),
          f"SMOVE of a member the destination holds leaves the destination untouched ({got})")


def big_and_flushing(port):
    c = Client(port)
    replies = c.pipeline([["MULTI"], ["SET", "gone", "1"], ["FLUSHALL"], ["SET", "kept", "2"], ["EXEC"]])
    check(replies[-1] == (b"*", [(b"+", b"OK")] * 3) and c.command("GET", "gone") == (b"$", None)
          and c.command("GET", "kept") == (b"$", b"2"), "FLUSHALL inside EXEC, among writes")
    commands = [["MULTI"]] + [["SET", f"t{i}", str(i)] for i in range(1000)] + [["EXEC"]]
    replies = c.pipeline(commands)
    check(replies[-1] == (b"*", [(b"+", b"OK")] * 1000) and
          c.command("MGET", "t0", "t999") == (b"*", [(b"$", b"0"), (b"$", b"999")]),
          "a transaction of 1000 SETs")


def main():
    return checks.run_parts("teksdb-tx-", (isolation, atomic_visibility, watch, big_and_flushing))


if __name__ == "__main__":
    sys.exit(main())
