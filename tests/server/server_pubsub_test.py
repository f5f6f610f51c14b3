#!/usr/bin/env python3
"""teksdb-server's Pub/Sub against real Redis (Debian's redis-server): the
same scenario runs on both, and everything each connection receives -
replies, confirmations, messages (RESP2 arrays, RESP3 pushes) - must be
byte for byte the same, except the lists PUBSUB CHANNELS returns (Redis's
order is its hash table's: compared as sets) and HELLO's connection id.

The scenario: RESP2 and RESP3 subscribers to channels, patterns and shard
channels; PUBLISH and SPUBLISH from a third connection, with the number of
receivers; commands refused in RESP2's subscribed context (and inside
MULTI), PING there; PUBSUB CHANNELS/NUMSUB/NUMPAT/SHARDCHANNELS/
SHARDNUMSUB; UNSUBSCRIBE of some, of all, of none; RESET; a subscriber
that closes without unsubscribing (no longer counted); then many messages
published from 4 threads at once, each subscriber receiving every one of
them in each publisher's order; keyspace notifications (CONFIG SET
notify-keyspace-events KEAn) of writes of every type, in two databases,
must be Redis's, message for message, and so must CLIENT TRACKING's
invalidations (RESP3 pushes, a RESP2 redirect target, BCAST prefixes,
FLUSHALL, a redirect target that quits).

Usage: server_pubsub_test.py PATH/TO/teksdb-server
"""

import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from server_checks import Checks, start_redis, stop  # noqa: E402
from resp_client import Client  # noqa: E402

checks = Checks("server_pubsub")
check = checks.check

# (connection, command[, how many replies it gets]) steps; a "read" step
# reads one more message the connection should have received.
SCENARIO = [
    ("sub2", ["SUBSCRIBE", "a", "b", "a"], 3),
    ("sub2", ["PSUBSCRIBE", "news.*", "n?ws.[xy]"], 2),
    ("sub2", ["SSUBSCRIBE", "shard1"]),
    ("sub3", ["HELLO", "3"]),
    ("sub3", ["SUBSCRIBE", "a"]),
    ("sub3", ["PSUBSCRIBE", "*"]),
    ("pub", ["PUBLISH", "a", "hello"]),
    ("sub2", "read"), ("sub3", "read"), ("sub3", "read"),
    ("pub", ["PUBLISH", "news.z", "world"]),
    ("sub2", "read"), ("sub3", "read"),
    ("pub", ["PUBLISH", "nows.y", "again"]),
    ("sub2", "read"), ("sub3", "read"),
    ("pub", ["PUBLISH", "nobody", "x"]),
    ("sub3", "read"),
    ("pub", ["SPUBLISH", "shard1", "sharded"]),
    ("sub2", "read"),
    ("pub", ["PUBSUB", "NUMSUB", "a", "b", "c"]),
    ("pub", ["PUBSUB", "NUMPAT"]),
    ("pub", ["PUBSUB", "CHANNELS"]),
    ("pub", ["PUBSUB", "CHANNELS", "a*"]),
    ("pub", ["PUBSUB", "SHARDCHANNELS"]),
    ("pub", ["PUBSUB", "SHARDNUMSUB", "shard1", "x"]),
    ("pub", ["PUBSUB", "BOGUS"]),
    ("pub", ["PUBSUB", "NUMPAT", "extra"]),
    ("sub2", ["GET", "k"]),
    ("sub2", ["PING"]),
    ("sub2", ["PING", "there"]),
    ("sub2", ["CLIENT", "SETNAME", "x"]),
    ("sub3", ["SET", "k", "v"]),
    ("sub3", ["GET", "k"]),
    ("sub3", ["PING"]),
    ("sub2", ["UNSUBSCRIBE", "a", "zz"], 2),
    ("sub2", ["PUNSUBSCRIBE"], 2),
    ("sub2", ["SUNSUBSCRIBE"]),
    ("sub2", ["UNSUBSCRIBE"]),
    ("sub2", ["UNSUBSCRIBE"]),
    ("sub2", ["GET", "k"]),
    ("sub2", ["SUBSCRIBE"]),
    ("pub", ["PUBLISH", "a", "second"]),
    ("sub3", "read"), ("sub3", "read"),
    ("sub3", ["RESET"]),
    ("pub", ["PUBLISH", "a", "third"]),
    ("pub", ["MULTI"]),
    ("pub", ["PUBLISH", "a", "in a transaction"]),
    ("pub", ["EXEC"]),
    ("gone", ["SUBSCRIBE", "a"]),
    ("gone", "close"),
    ("pub", "until nobody listens on a"),
    ("pub", ["PUBSUB", "NUMSUB", "a"]),
    ("pub", ["PUBLISH", "a", "after close"]),
]


def run(port):
    """The scenario on one server: what each step received."""
    conns = {name: Client(port) for name in ("sub2", "sub3", "pub", "gone")}
    transcript = []
    for name, step, *count in SCENARIO:
        conn = conns[name]
        if step == "read":
            transcript.append((name, "read", conn.reply()))
        elif step == "close":
            conn.sock.close()
        elif step == "until nobody listens on a":
            # A closed connection is noticed asynchronously (both servers).
            deadline = time.time() + 10
            while conn.command("PUBSUB", "NUMSUB", "a")[1][1] != (b":", b"0"):
                if time.time() > deadline:
                    break
                time.sleep(0.01)
        else:
            conn.sock.sendall(conn.encode(step))
            for i in range(count[0] if count else 1):
                transcript.append((name, " ".join(step) + f" #{i + 1}", conn.reply()))
    return transcript, conns


# Keyspace notifications: "cli" writes every type (two databases, keys a
# command empties, keys moved, renamed, copied, an expiry that the server
# reaches itself); "watch" receives every __keyspace@/__keyevent@ message,
# up to the closing "end" message.
NOTIFIED = [
    ["SET", "a", "1"], ["SET", "a", "2", "EX", "100"], ["EXPIRE", "a", "50"], ["PERSIST", "a"],
    ["INCR", "n"], ["INCRBYFLOAT", "n", "1.5"], ["APPEND", "s", "x"], ["SETRANGE", "s", "0", "y"],
    ["GETDEL", "s"], ["DEL", "a"], ["DEL", "a"], ["MSET", "m1", "1", "m2", "2"],
    ["LPUSH", "l", "a", "b"], ["RPUSH", "l", "c", "a"], ["LPOP", "l"], ["RPOPLPUSH", "l", "l2"],
    ["LMOVE", "l2", "l", "LEFT", "RIGHT"], ["LREM", "l", "0", "a"], ["LSET", "l", "0", "z"],
    ["LINSERT", "l", "BEFORE", "z", "y"], ["LTRIM", "l", "5", "10"],
    ["HSET", "h", "f", "v"], ["HINCRBY", "h", "g", "1"], ["HDEL", "h", "f", "g"],
    ["SADD", "s1", "a", "b"], ["SREM", "s1", "x"], ["SMOVE", "s1", "s2", "a"], ["SPOP", "s1"],
    ["SINTERSTORE", "d", "s2", "s2"], ["SINTERSTORE", "d", "nothing", "s2"],
    ["ZADD", "z", "1", "a", "2", "b"], ["ZINCRBY", "z", "1", "a"], ["ZREM", "z", "a"],
    ["ZPOPMIN", "z"], ["ZADD", "z", "1", "a"], ["ZREMRANGEBYSCORE", "z", "0", "5"],
    ["SADD", "s2", "q"], ["RENAME", "s2", "s3"], ["MOVE", "s3", "1"], ["SET", "c", "v"],
    ["COPY", "c", "c2"], ["EXPIRE", "c2", "0"], ["SELECT", "1"], ["SET", "x", "y"], ["DEL", "s3"],
    ["SELECT", "0"], ["FLUSHDB"], ["PSETEX", "soon", "50"],
]


def notifications(port):
    """What "watch" receives while "cli" runs NOTIFIED with every class on."""
    watch, cli = Client(port), Client(port)
    cli.command("CONFIG", "SET", "notify-keyspace-events", "KEAn")
    watch.command("PSUBSCRIBE", "__key*__:*")
    watch.command("SUBSCRIBE", "end")
    for command in NOTIFIED:
        cli.command(*command)
    time.sleep(0.6)  # "soon" expires, and the server's own sweep deletes it
    cli.command("PUBLISH", "end", "x")
    received = []
    while True:
        message = watch.reply()
        if message[1][1] == (b"$", b"end"):
            break
        received.append(tuple(part[1] for part in message[1][2:]))
    cli.command("CONFIG", "SET", "notify-keyspace-events", "")
    return received


def tracking(port):
    """CLIENT TRACKING: what a RESP3 client tracking its reads, and a RESP2
    client receiving a BCAST client's redirected invalidations, get from a
    run of writes (and a FLUSHALL) by a third."""
    reads, redirect, bcast, writer = Client(port), Client(port), Client(port), Client(port)
    transcript = [reads.command("HELLO", "3")[0], reads.command("CLIENT", "TRACKING", "on")]

    def reply_after_pushes(conn, *command):
        """The command's reply, after the pushes that came before it."""
        conn.sock.sendall(conn.encode(command))
        while True:
            message = conn.reply()
            transcript.append(message)
            if message[0] != b">":
                return

    redirect_id = redirect.command("CLIENT", "ID")[1].decode()
    transcript.append(redirect.command("SUBSCRIBE", "__redis__:invalidate"))
    transcript.append(bcast.command("CLIENT", "TRACKING", "on", "REDIRECT", redirect_id, "BCAST",
                                    "PREFIX", "x", "PREFIX", "y"))
    transcript.append(bcast.command("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "xz"))
    transcript.append(reads.command("MGET", "a", "b", "c"))
    for step in (["SET", "a", "1"], ["MSET", "b", "1", "x1", "2", "y1", "3", "z", "4"],
                 ["SET", "a", "2"], ["HSET", "xh", "f", "v"], ["DEL", "c"]):
        transcript.append(writer.command(*step))
    reply_after_pushes(reads, "GET", "a")
    transcript.append(writer.command("INCR", "a"))
    transcript.append(writer.command("FLUSHALL"))
    transcript.append(writer.command("PUBLISH", "__redis__:invalidate", "end"))
    reads.sock.sendall(reads.encode(["PING"]))
    while True:
        message = reads.reply()
        transcript.append(("reads", message))
        if message == (b"+", b"PONG"):
            break
    while True:
        message = redirect.reply()
        transcript.append(("redirect", message))
        if message[1][2] == (b"$", b"end"):
            break
    info = bcast.command("CLIENT", "TRACKINGINFO")
    transcript.append(info if info[1][3] != (b":", redirect_id.encode()) else "redirect ok")
    return transcript


def redirect_quit(port, rounds=50):
    """A RESP3 client's tracking redirected to a client that QUITs: the
    write after the QUIT's reply breaks the redirect, and the client is
    told (a tracking-redir-broken push before its next reply), every round."""
    reads, writer = Client(port), Client(port)
    reads.command("HELLO", "3")
    told = 0
    for i in range(rounds):
        target = Client(port)
        target_id = target.command("CLIENT", "ID")[1]
        reads.command("CLIENT", "TRACKING", "on", "REDIRECT", target_id)
        writer.command("SET", "k", str(i))
        reads.command("GET", "k")
        target.command("QUIT")
        writer.command("SET", "k", "after")
        reads.sock.sendall(reads.encode(["PING"]))
        messages = [reads.reply()]
        while messages[-1][0] == b">":
            messages.append(reads.reply())
        told += messages[0] == (b">", [(b"$", b"tracking-redir-broken"), (b":", target_id)])
        reads.command("CLIENT", "TRACKING", "off")
    return told


def same(step, a, b):
    if step.startswith("HELLO") and a[0] == b[0] == b"%":
        return a[1][:7] + a[1][8:] == b[1][:7] + b[1][8:]  # all but the connection's id
    if step.startswith("PUBSUB CHANNELS") or step.startswith("PUBSUB SHARDCHANNELS"):
        return a[0] == b[0] and sorted(x[1] for x in a[1]) == sorted(x[1] for x in b[1])
    return a == b


def flood(port, conns):
    """4 publishers x 200 messages on channel "flood" while sub2 and sub3
    listen: each gets all 800, every publisher's in its order."""
    for name in ("sub2", "sub3"):
        conns[name].command("SUBSCRIBE", "flood")

    def publish(i):
        c = Client(port)
        for j in range(200):
            c.command("PUBLISH", "flood", f"{i}:{j}")
    threads = [threading.Thread(target=publish, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for name in ("sub2", "sub3"):
        got = [conns[name].reply()[1][2][1].decode() for _ in range(800)]
        orders = [[int(m.split(":")[1]) for m in got if m.startswith(f"{i}:")] for i in range(4)]
        check(all(o == list(range(200)) for o in orders),
              f"{name}: 800 messages from 4 publishers, each publisher's in order")


def main():
    server_bin = sys.argv[1]
    if shutil.which("redis-server") is None:
        print("FAIL: redis-server not found (scripts/setup.sh installs it)")
        return 1
    tmp = tempfile.mkdtemp(prefix="teksdb-pubsub-")
    procs = []
    try:
        redis_port, redis_proc = start_redis(tmp)
        procs.append(redis_proc)
        teks_port, teks_proc = checks.start_server(server_bin, os.path.join(tmp, "teks"))
        procs.append(teks_proc)
        want, _ = run(redis_port)
        got, conns = run(teks_port)
        for (name, step, a), (_, _, b) in zip(want, got):
            check(same(step, a, b), f"{name}: {step} -> {b}" + ("" if same(step, a, b) else f" (Redis: {a})"))
        flood(teks_port, conns)
        want, got = tracking(redis_port), tracking(teks_port)
        check(want == got, "CLIENT TRACKING: invalidations as Redis's"
              + ("" if want == got else f"\n  Redis:  {want}\n  teksdb: {got}"))
        want, got = redirect_quit(redis_port), redirect_quit(teks_port)
        check(want == got == 50, f"tracking redirected to a client that quit: broken in {got} "
              f"of 50 rounds (Redis: {want})")
        want, got = notifications(redis_port), notifications(teks_port)
        check(want == got, f"keyspace notifications: {len(got)} messages, as Redis's"
              + ("" if want == got else f"\n  Redis:  {want}\n  teksdb: {got}"))
    finally:
        stop(procs)
    return checks.finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
