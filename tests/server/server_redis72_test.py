#!/usr/bin/env python3
"""What Redis 7.2 added that teksdb-server answers as Redis 7.4.1 does,
against a recorded 7.4.1 (tests/server/redis74_replies.txt; Debian has no
7.4 and CI builds none):
  - CASES, one connection in order, each reply byte for byte as 7.4.1's
    (CLIENT INFO by the fields that are not the connection's own: flags,
    name, lib-name, lib-ver, db, resp, cmd): CLIENT SETINFO (lib-name,
    lib-ver, their refusals), CLIENT NO-TOUCH (flag T, RESET clears it and
    keeps lib-name), CLIENT KILL MAXAGE's errors (7.4's), ZRANK/ZREVRANK
    WITHSCORE in RESP2 and RESP3, CLUSTER, READONLY, READWRITE and ASKING
    with cluster support disabled, WAITAOF's
    (and WAIT's timeout past the clock's range, as 7.2 refuses it)
    arguments and replies (7.4.1 recorded with appendonly yes: the WAL is
    this server's append-only file, always on), HELLO's options (not a
    SETNAME before another option's error: 7.0 keeps the name, 7.4 does
    not, and this server answers as 7.0; server_redis_differential
    compares HELLO with 7.0);
  - WAITAOF with replicas (live, this server only): a replica that syncs
    each batch (--sync) counts once it acknowledged the write, one that does
    not never counts (WAITAOF waits out its timeout), and WAIT counts both.

Usage: server_redis72_test.py PATH/TO/teksdb-server
       server_redis72_test.py --record PATH/TO/redis-server-7.4.1
         (runs CASES on that server, appendonly yes, and writes the file)
"""

import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import recorded_replies  # noqa: E402
from resp_client import Client, free_port  # noqa: E402
from server_checks import Checks, stop, wait_for  # noqa: E402

RECORDED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "redis74_replies.txt")
CLIENT_FIELDS = ("flags", "name", "lib-name", "lib-ver", "db", "resp", "cmd")

# (command, how its reply is compared: "exact", "client" (CLIENT INFO's
# fields above) or "type" (the reply's type only: HELLO's map, whose
# version and id differ)).
CASES = [
    (["CLIENT", "SETINFO", "lib-name", "redis-py"], "exact"),
    (["CLIENT", "SETINFO", "LIB-VER", "5.0.1"], "exact"),
    (["CLIENT", "INFO"], "client"),
    (["CLIENT", "SETINFO", "lib-name", "two words"], "exact"),
    (["CLIENT", "SETINFO", "Lib-Ver", "tab\there"], "exact"),
    (["CLIENT", "SETINFO", "lib-name", "caf\xe9"], "exact"),
    (["CLIENT", "SETINFO", "lib-other", "x"], "exact"),
    (["CLIENT", "SETINFO", "lib-name"], "exact"),
    (["CLIENT", "SETINFO", "lib-name", "a", "b"], "exact"),
    (["CLIENT", "INFO"], "client"),
    (["CLIENT", "SETINFO", "lib-ver", ""], "exact"),
    (["CLIENT", "INFO"], "client"),
    (["CLIENT", "NO-TOUCH", "ON"], "exact"),
    (["CLIENT", "INFO"], "client"),
    (["CLIENT", "NO-TOUCH", "maybe"], "exact"),
    (["CLIENT", "NO-TOUCH"], "exact"),
    (["CLIENT", "NO-TOUCH", "off"], "exact"),
    (["CLIENT", "INFO"], "client"),
    (["CLIENT", "NO-TOUCH", "on"], "exact"),
    (["CLIENT", "SETNAME", "named"], "exact"),
    (["RESET"], "exact"),
    (["CLIENT", "INFO"], "client"),
    (["CLIENT", "SETNAME", "bad\x01name"], "exact"),
    (["CLIENT", "SETNAME", "bad\tname"], "exact"),
    (["CLIENT", "GETNAME"], "exact"),
    (["DEL", "z", "s"], "exact"),
    (["ZADD", "z", "1.5", "a", "2", "b", "-inf", "c"], "exact"),
    (["SET", "s", "x"], "exact"),
    (["ZRANK", "z", "a", "WITHSCORE"], "exact"),
    (["ZREVRANK", "z", "a", "withscore"], "exact"),
    (["ZRANK", "z", "c", "WITHSCORE"], "exact"),
    (["ZREVRANK", "z", "c", "WITHSCORE"], "exact"),
    (["ZRANK", "z", "nosuch", "WITHSCORE"], "exact"),
    (["ZRANK", "nokey", "a", "WITHSCORE"], "exact"),
    (["ZRANK", "z", "a"], "exact"),
    (["ZRANK", "z", "a", "WITHSCORES"], "exact"),
    (["ZRANK", "z", "a", "WITHSCORE", "x"], "exact"),
    (["ZREVRANK", "z", "a", "WITHSCORE", "x"], "exact"),
    (["ZRANK", "s", "a", "WITHSCORE"], "exact"),
    (["ZRANK", "s", "a", "bogus"], "exact"),
    (["ZRANK", "nokey", "a", "bogus"], "exact"),
    (["HELLO", "3"], "type"),
    (["ZRANK", "z", "b", "WITHSCORE"], "exact"),
    (["ZRANK", "z", "c", "WITHSCORE"], "exact"),
    (["ZRANK", "z", "nosuch", "WITHSCORE"], "exact"),
    (["ZRANK", "z", "nosuch"], "exact"),
    (["HELLO", "2"], "type"),
    (["CLIENT", "KILL", "MAXAGE", "str"], "exact"),
    (["CLIENT", "KILL", "MAXAGE", "0"], "exact"),
    (["CLIENT", "KILL", "MAXAGE", "100000", "SKIPME", "yes"], "exact"),
    (["CLUSTER", "INFO"], "exact"),
    (["CLUSTER", "NODES"], "exact"),
    (["CLUSTER", "SLOTS"], "exact"),
    (["CLUSTER", "SHARDS"], "exact"),
    (["CLUSTER", "KEYSLOT", "foo"], "exact"),
    (["CLUSTER", "HELP"], "exact"),
    (["CLUSTER", "INFO", "extra"], "exact"),
    (["CLUSTER", "BOGUS"], "exact"),
    (["CLUSTER"], "exact"),
    (["READONLY"], "exact"),
    (["READWRITE"], "exact"),
    (["ASKING"], "exact"),
    (["SET", "k", "v"], "exact"),
    (["WAITAOF", "0", "0", "0"], "exact"),
    (["WAITAOF", "1", "0", "0"], "exact"),
    (["WAITAOF", "1", "0", "100"], "exact"),
    (["WAITAOF", "2", "0", "0"], "exact"),
    (["WAITAOF", "-1", "0", "0"], "exact"),
    (["WAITAOF", "x", "0", "0"], "exact"),
    (["WAITAOF", "0", "-1", "0"], "exact"),
    (["WAITAOF", "0", "x", "0"], "exact"),
    (["WAITAOF", "0", "0", "-1"], "exact"),
    (["WAITAOF", "0", "0", "x"], "exact"),
    (["WAITAOF", "0", "0"], "exact"),
    (["WAITAOF", "0", "0", "9223372036854775807"], "exact"),
    (["WAIT", "0", "9223372036854775807"], "exact"),
    (["MULTI"], "exact"),
    (["WAITAOF", "0", "1", "0"], "exact"),
    (["EXEC"], "exact"),
    (["SET", "k", "w"], "exact"),
    (["HELLO", "4", "BOGUS"], "exact"),
    (["HELLO", "x"], "exact"),
    (["HELLO", "2", "SETNAME", "bad name"], "exact"),
    (["HELLO", "2", "SETNAME", "second", "AUTH", "default", "wrong"], "type"),
    (["CLIENT", "GETNAME"], "exact"),
    (["CLIENT", "INFO"], "client"),
]


def view(cmd, how, reply):
    """What of `reply` is compared."""
    if how == "type":
        return reply[0]
    if how == "client":
        if reply[0] != b"$":
            return reply
        fields = dict(f.split("=", 1) for f in reply[1].decode().split())
        return {k: fields.get(k) for k in CLIENT_FIELDS}
    return reply


def run_cases(port):
    c = Client(port)
    return [view(cmd, how, c.command(*cmd)) for cmd, how in CASES]


def record(redis_bin):
    tmp = tempfile.mkdtemp(prefix="teksdb-redis74-")
    port = free_port()
    proc = subprocess.Popen([redis_bin, "--port", str(port), "--save", "", "--appendonly", "yes",
                             "--dir", tmp], stdout=subprocess.DEVNULL)
    try:
        version = Client(port).command("INFO", "server")[1].split(b"redis_version:")[1].split(b"\r")[0]
        views = run_cases(port)
    finally:
        stop([proc])
    recorded_replies.write(RECORDED, "server_redis72_test.py", version.decode(), views)
    return 0


def recorded():
    return recorded_replies.read(RECORDED)


def replicas_and_waitaof(checks, server_bin, tmp):
    primary_port, primary = checks.start_server(server_bin, os.path.join(tmp, "primary"))
    procs = [primary]
    try:
        p = Client(primary_port)
        synced_port, synced = checks.start_server(server_bin, os.path.join(tmp, "synced"), "--sync",
                                        "--replicaof", "127.0.0.1", str(primary_port))
        procs.append(synced)
        online = wait_for(lambda: b"slave0:" in p.command("INFO", "replication")[1], 30)
        checks.check(online, "a replica with --sync is online")
        p.command("SET", "a", "1")
        checks.check(p.command("WAITAOF", "1", "1", "5000") == (b"*", [(b":", b"1"), (b":", b"1")]),
                     "WAITAOF 1 1: synced here and on the --sync replica")
        _, unsynced = checks.start_server(server_bin, os.path.join(tmp, "unsynced"),
                                          "--replicaof", "127.0.0.1", str(primary_port))
        procs.append(unsynced)
        online = wait_for(lambda: b"slave1:" in p.command("INFO", "replication")[1], 30)
        checks.check(online, "a replica without --sync is online too")
        p.command("SET", "b", "2")
        checks.check(p.command("WAIT", "2", "5000") == (b":", b"2"), "WAIT 2: both replicas acknowledged")
        started = time.time()
        got = p.command("WAITAOF", "0", "2", "300")
        waited = time.time() - started
        checks.check(got == (b"*", [(b":", b"0"), (b":", b"1")]) and waited >= 0.25,
                     f"WAITAOF 0 2 300: only the --sync replica counts, after the timeout; the "
                     f"write not synced here ({got}, {waited:.2f} s)")
        checks.check(p.command("WAITAOF", "1", "1", "0") == (b"*", [(b":", b"1"), (b":", b"1")]),
                     "WAITAOF 1 1 0: synced here now, met at once")
        checks.check(p.command("WAITAOF", "0", "1", "0") == (b"*", [(b":", b"1"), (b":", b"1")]),
                     "WAITAOF 0 1 0 after it: synced here already")
        r = Client(synced_port)
        checks.check(r.command("WAITAOF", "0", "0", "0")[1].startswith(b"ERR WAITAOF cannot be used with replica"),
                     "WAITAOF on a replica: Redis's refusal")
    finally:
        stop(procs)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--record":
        return record(sys.argv[2])
    checks = Checks("server_redis72")
    want = recorded()
    tmp = tempfile.mkdtemp(prefix="teksdb-redis72-")
    port, proc = checks.start_server(sys.argv[1], os.path.join(tmp, "db"))
    try:
        got = run_cases(port)
    finally:
        stop([proc])
    checks.check(len(want) == len(CASES), f"{len(want)} recorded replies for {len(CASES)} cases")
    differing = [(cmd, w, g) for (cmd, _), w, g in zip(CASES, want, got) if w != g]
    for cmd, w, g in differing:
        print(f"  {cmd}:\n    redis 7.4.1: {w}\n    teksdb:      {g}")
    checks.check(not differing, f"{len(CASES) - len(differing)} of {len(CASES)} cases answered as "
                                "redis-server 7.4.1 (recorded)")
    replicas_and_waitaof(checks, sys.argv[1], tmp)
    return checks.finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
