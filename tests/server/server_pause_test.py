#!/usr/bin/env python3
"""CLIENT PAUSE and UNPAUSE as Redis 7.0 answers them, and what Redis's own
unit/pause (scripts/redis_suite.sh) does not reach:
  - errors (mode, timeout, arguments) reply for reply as redis-server's;
  - PAUSE WRITE holds writes and lets reads through; the held client
    counts in blocked_clients, CLIENT UNBLOCK leaves it (0), UNPAUSE runs
    it;
  - PAUSE ALL holds reads too, and ends by itself at its timeout;
  - a blocking command held by a pause gets its whole timeout after it;
  - nothing expires while writes are paused (expired_keys stays, the key
    reads as absent), and a read reclaims it after;
  - many clients on several I/O threads writing while the pause comes and
    goes: every write is answered once and lands (no held client is
    forgotten by a wake that came before it waited).

Usage: server_pause_test.py PATH/TO/teksdb-server
"""

import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from server_checks import Checks, start_redis, stop, wait_for  # noqa: E402
from resp_client import Client  # noqa: E402

checks = Checks("server_pause")
check = checks.check

ERRORS = [
    ("CLIENT", "PAUSE", "100", "bad"),
    ("CLIENT", "PAUSE", "-1"),
    ("CLIENT", "PAUSE", "abc"),
    ("CLIENT", "PAUSE", "1", "all", "x"),
    ("CLIENT", "PAUSE"),
    ("CLIENT", "UNPAUSE", "x"),
    ("CLIENT", "PAUSE", "0"),
    ("CLIENT", "UNPAUSE"),
]


def error_replies(port):
    c = Client(port)
    return [c.command(*args) for args in ERRORS]


def info_field(c, name):
    for line in c.command("INFO", "everything")[1].decode().splitlines():
        if line.startswith(name + ":"):
            return int(line.split(":", 1)[1])
    return None


def replied_within(client, seconds):
    """The client's next reply if it comes within `seconds`, else None
    (the socket's timeout put back)."""
    client.sock.settimeout(seconds)
    try:
        return client.reply()
    except OSError:
        return None
    finally:
        client.sock.settimeout(None)


def write_pause(port):
    admin, held = Client(port), Client(port)
    check(admin.command("CLIENT", "PAUSE", "100000", "WRITE") == (b"+", b"OK"), "PAUSE WRITE: OK")
    check(held.command("GET", "k") == (b"$", None), "PAUSE WRITE: a read is answered")
    held.sock.sendall(Client.encode(["SET", "k", "v"]))
    check(wait_for(lambda: info_field(admin, "blocked_clients") == 1, 10),
          "PAUSE WRITE: the SET is held (blocked_clients 1)")
    held_id = int([f for f in admin.command("CLIENT", "LIST")[1].decode().split()
                   if f.startswith("id=")][-1][3:])
    check(admin.command("CLIENT", "UNBLOCK", held_id) == (b":", b"0"),
          "CLIENT UNBLOCK of a held client: 0, as Redis 7.2")
    check(replied_within(held, 0.3) is None, "PAUSE WRITE: still held after CLIENT UNBLOCK")
    check(admin.command("CLIENT", "UNPAUSE") == (b"+", b"OK"), "UNPAUSE: OK")
    check(replied_within(held, 10) == (b"+", b"OK"), "UNPAUSE: the held SET runs")
    check(admin.command("GET", "k") == (b"$", b"v"), "UNPAUSE: the held SET landed")


def all_pause_times_out(port):
    admin, held = Client(port), Client(port)
    admin.command("CLIENT", "PAUSE", "500", "ALL")
    started = time.time()
    held.sock.sendall(Client.encode(["GET", "k"]))
    check(replied_within(held, 0.2) is None, "PAUSE ALL: a read is held too")
    reply = replied_within(held, 10)
    check(reply == (b"$", b"v") and time.time() - started >= 0.45,
          f"PAUSE ALL 500: the read runs when the pause ends ({time.time() - started:.2f} s)")


def held_blocking_command(port):
    admin, held = Client(port), Client(port)
    admin.command("CLIENT", "PAUSE", "1500", "ALL")
    started = time.time()
    held.sock.sendall(Client.encode(["BLPOP", "empty-list", "1"]))
    reply = replied_within(held, 15)
    elapsed = time.time() - started
    check(reply == (b"*", None) and elapsed >= 2.2,
          f"BLPOP 1 held by a pause of 1.5 s: its whole second after it ({elapsed:.2f} s)")


def expiry_waits(port):
    admin = Client(port)
    expired = info_field(admin, "expired_keys")
    admin.command("SET", "ttl-key", "v", "PX", "50")
    admin.command("CLIENT", "PAUSE", "100000", "WRITE")
    time.sleep(0.4)  # past its TTL, and past several sweeps
    check(admin.command("GET", "ttl-key") == (b"$", None), "paused: an expired key reads as absent")
    check(info_field(admin, "expired_keys") == expired, "paused: nothing expired (expired_keys stays)")
    admin.command("CLIENT", "UNPAUSE")
    admin.command("GET", "ttl-key")
    check(wait_for(lambda: info_field(admin, "expired_keys") == expired + 1, 10),
          "unpaused: the key is reclaimed (expired_keys + 1)")


def pauses_come_and_go(port):
    writers, writes = 24, 40
    failures = []

    def write(n):
        try:
            c = Client(port)
            for i in range(writes):
                reply = c.command("INCR", "counter")
                if reply[0] != b":":
                    failures.append(f"writer {n}, write {i}: {reply}")
        except Exception as error:  # noqa: BLE001 (reported below)
            failures.append(f"writer {n}: {error!r}")

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    for t in threads:
        t.start()
    admin = Client(port)
    while any(t.is_alive() for t in threads):
        admin.command("CLIENT", "PAUSE", "100000", "WRITE")
        time.sleep(0.003)
        admin.command("CLIENT", "UNPAUSE")
        time.sleep(0.002)
    for t in threads:
        t.join()
    check(not failures, "writers under pauses: every write answered" + "".join("\n  " + f for f in failures[:5]))
    total = admin.command("GET", "counter")
    check(total == (b"$", str(writers * writes).encode()),
          f"writers under pauses: the counter is {writers * writes} ({total[1]})")


def main():
    server_bin = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="teksdb-pause-")
    port, proc = checks.start_server(server_bin, os.path.join(tmp, "db"), threads=4)
    try:
        for part in (write_pause, all_pause_times_out, held_blocking_command, expiry_waits,
                     pauses_come_and_go):
            part(port)
        Client(port).command("CLIENT", "UNPAUSE")
        got = error_replies(port)
    finally:
        stop([proc])
    if shutil.which("redis-server") is None:
        check(False, "errors: redis-server not found (scripts/setup.sh installs it)")
    else:
        redis_port, redis_proc = start_redis(tmp)
        try:
            want = error_replies(redis_port)
        finally:
            stop([redis_proc])
        for args, a, b in zip(ERRORS, want, got):
            check(a == b, f"{' '.join(args)}: {b}" + ("" if a == b else f" (Redis: {a})"))
    return checks.finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
