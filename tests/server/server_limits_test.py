#!/usr/bin/env python3
"""What one client, or one passing fault, can do to teksdb-server, beside
Debian's redis-server 7.0 wherever Redis has the behaviour
(docs/RELIABILITY.md, "What one client can do"):
  - before AUTH, Redis's limits (10 arguments, 16 KiB bulks) with Redis's
    errors, and a flood of huge headers and bulks grows the server by at
    most 1 MiB;
  - proto-max-bulk-len and client-query-buffer-limit act (CONFIG SET), the
    closing logged in Redis's words;
  - maxclients: the client past it gets Redis's error;
  - a subscriber and a MONITOR client that never read are closed at their
    client-output-buffer-limit, CLIENT LIST's omem shows what they hold,
    and the memory comes back; a normal client's reply past its limit is
    never sent;
  - the process out of descriptors (its soft limit lowered under idle
    sockets): a connected client is still answered within 1 s, accept does
    not spin, RocksDB's "Too many open files" error clears by itself once
    descriptors are back, and every acknowledged write survives a restart;
  - a full disk (a small tmpfs the test mounts; root only): writes are
    refused naming the cause, reads go on, writes come back within 1 s of
    space being freed, every acknowledged write survives a restart;
  - protected mode: a client from another address (a network namespace
    and veth pair the test makes; root only) gets Redis's DENIED text,
    word for word as redis-server's, unless a password is set;
  - a configuration file: directives, quoting, include, errors naming the
    file and line, CONFIG REWRITE;
  - maxmemory-clients: the largest clients evicted first until all hold
    less (an argument counts at its declared length, MULTI's queue too),
    CLIENT NO-EVICT passed by, INFO's evicted_clients, across I/O threads;
  - oom-score-adj: the process's score set relative, absolute, put back.

Usage: server_limits_test.py PATH/TO/teksdb-server
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from server_checks import Checks, rss_kb, start_redis, stop, wait_for  # noqa: E402
from resp_client import Client, free_port  # noqa: E402

checks = Checks("server_limits")
check = checks.check
server_bin = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="teksdb-limits-")
is_root = os.geteuid() == 0
# Under a sanitizer (scripts/test.sh's asan phase) freed memory is held in
# quarantine (hundreds of MiB) and shadowed: resident memory says nothing
# of what the server holds, so the memory figures are checked in the builds
# without one only (debug and release); what happens (closed, refused) is
# checked in every build. Times are checked loosely there: what must take
# under 1 s takes under TIME_SLACK s.
sanitized = "ASAN_OPTIONS" in os.environ
TIME_SLACK = 3 if sanitized else 1


def check_memory(ok, what):
    if sanitized:
        print(f"not measured under a sanitizer: {what}")
    else:
        check(ok, what)


def cpu_s(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def soft_nofile(pid):
    for line in open(f"/proc/{pid}/limits"):
        if line.startswith("Max open files"):
            return int(line.split()[3])
    return 0


def exchange(port, data, timeout=3):
    """Sends raw bytes; what came back until the server closed (or
    `timeout` passed), and whether it closed."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    got, closed = b"", False
    try:
        s.sendall(data)
        while True:
            chunk = s.recv(65536)
            if not chunk:
                closed = True
                break
            got += chunk
    except (socket.timeout, ConnectionResetError, BrokenPipeError):
        pass
    s.close()
    return got, closed


def log_of(name):
    with open(os.path.join(tmp, name + ".log"), errors="replace") as f:
        return f.read()


# The probes before AUTH: Redis's replies, and no growth past 1 MiB.
UNAUTHENTICATED = [
    b"*1048576\r\n",
    b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$536870912\r\n",
    b"*11\r\n" + b"$1\r\nx\r\n" * 11,
    b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$16385\r\n" + b"v" * 16385 + b"\r\n",
    b"GET " + b"k" * 200000 + b"\r\n",
]


def first_line(reply):
    return reply.split(b"\r\n", 1)[0]


def before_auth(port, redis_port, pid):
    for probe in UNAUTHENTICATED:
        ours, closed = exchange(port, probe)
        theirs, _ = exchange(redis_port, probe)
        check(first_line(ours) == first_line(theirs) and closed,
              f"before AUTH {probe[:24]!r}...: {first_line(ours)!r}, connection closed, as "
              f"redis-server's {first_line(theirs)!r}")
    ours, _ = exchange(port, b"*2\r\n$4\r\nAUTH\r\n$6\r\nsecret\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n"
                             b"$20000\r\n" + b"v" * 20000 + b"\r\n*2\r\n$6\r\nSTRLEN\r\n$1\r\nk\r\n")
    check(ours == b"+OK\r\n+OK\r\n:20000\r\n", f"a pipelined AUTH lifts the limits at once ({ours[:40]!r})")
    # One connection sending all it can before AUTH: every probe above,
    # pipelined, then a stream of commands whose replies it never reads.
    before = rss_kb(pid)
    one = socket.create_connection(("127.0.0.1", port))
    one.sendall(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$16384\r\n" + b"v" * 16000)
    time.sleep(0.2)
    peak = rss_kb(pid)
    flood = socket.create_connection(("127.0.0.1", port))
    flood.settimeout(0.2)
    try:
        for _ in range(2000):
            flood.sendall(b"*10\r\n" + (b"$16384\r\n" + b"x" * 16384 + b"\r\n") * 10)
            peak = max(peak, rss_kb(pid))
    except OSError:
        pass
    time.sleep(0.3)
    grown = max(peak, rss_kb(pid)) - before
    check_memory(grown <= 1024, f"one unauthenticated connection mid-request and one flooding grew the "
                         f"server by {grown} KiB (at most 1 MiB)")
    one.close()
    flood.close()


def query_limits(port):
    c = Client(port)
    c.command("AUTH", "secret")
    check(c.command("CONFIG", "SET", "proto-max-bulk-len", "1mb") == (b"+", b"OK"), "proto-max-bulk-len set")
    got, closed = exchange(port, b"*2\r\n$4\r\nAUTH\r\n$6\r\nsecret\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n"
                                 b"$2000000\r\n")
    check(b"-ERR Protocol error: invalid bulk length" in got and closed,
          f"a bulk over proto-max-bulk-len: Redis's error ({got[-60:]!r})")
    c.command("CONFIG", "SET", "proto-max-bulk-len", "512mb")
    check(c.command("CONFIG", "SET", "client-query-buffer-limit", "1mb") == (b"+", b"OK"),
          "client-query-buffer-limit set")
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"*2\r\n$4\r\nAUTH\r\n$6\r\nsecret\r\n")
    s.recv(100)
    closed = False
    try:
        s.sendall(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2000000\r\n")
        for _ in range(40):
            s.sendall(b"x" * 65536)
        closed = s.recv(100) == b""
    except OSError:
        closed = True
    s.close()
    time.sleep(0.2)
    check(closed and "Closing client that reached max query buffer length" in log_of("limits"),
          "a request past client-query-buffer-limit closes its client, logged in Redis's words")
    c.command("CONFIG", "SET", "client-query-buffer-limit", "1gb")
    check(c.command("CONFIG", "SET", "client-query-buffer-limit", "100") == (
        b"-", b"ERR CONFIG SET failed (possibly related to argument 'client-query-buffer-limit') - "
              b"argument must be between 1048576 and 9223372036854775807 inclusive"),
          "client-query-buffer-limit's bounds, as Redis's")


def maxclients(port, redis_port):
    errors = []
    for p in (port, redis_port):
        admin = Client(p)
        admin.command("AUTH", "secret")
        admin.command("CONFIG", "SET", "maxclients", "5")
        held = [socket.create_connection(("127.0.0.1", p)) for _ in range(4)]
        got, closed = exchange(p, b"PING\r\n")
        errors.append((got, closed))
        for s in held:
            s.close()
        time.sleep(0.2)
        admin.command("CONFIG", "SET", "maxclients", "10000")
    check(errors[0][0] == errors[1][0] == b"-ERR max number of clients reached\r\n",
          f"the client past maxclients: {errors[0]!r}, as redis-server's {errors[1]!r}")
    c = Client(port)
    c.command("AUTH", "secret")
    # (At least the one: a connection an earlier probe closed may still be
    # counted for a moment, and one of the four held refused with it.)
    info = c.command("INFO", "stats")[1]
    rejected = int(info.split(b"rejected_connections:")[1].split(b"\r\n")[0])
    check(rejected >= 1, f"INFO counts the refused client (rejected_connections:{rejected})")
    reply = c.command("CONFIG", "SET", "maxclients", "4000000000")
    check(reply[0] == b"-" and b"not able to handle the specified number of clients" in reply[1],
          f"maxclients past the descriptors: Redis's refusal ({reply[1][:90]!r})")


def omem_of(admin, name):
    for line in admin.command("CLIENT", "LIST")[1].decode().splitlines():
        if f"name={name} " in line:
            return int(line.split(" omem=")[1].split()[0])
    return None


def output_limits(port, pid):
    admin = Client(port)
    admin.command("AUTH", "secret")
    base = rss_kb(pid)
    for kind in ("subscriber", "monitor"):
        if kind == "monitor":
            admin.command("CONFIG", "SET", "client-output-buffer-limit", "normal 8mb 0 0")
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(b"AUTH secret\r\nCLIENT SETNAME slow\r\n" +
                  (b"SUBSCRIBE ch\r\n" if kind == "subscriber" else b"MONITOR\r\n"))
        time.sleep(0.3)
        publisher = Client(port)
        publisher.command("AUTH", "secret")
        message = b"m" * (1 << 20)
        peak, seen_omem = 0, 0
        for _ in range(60):
            # (ECHO: a MONITOR line of 1 MiB that stores nothing.)
            publisher.command("PUBLISH" if kind == "subscriber" else "ECHO", *(
                ["ch", message] if kind == "subscriber" else [message]))
            peak = max(peak, rss_kb(pid))
            omem = omem_of(admin, "slow")
            if omem is None:
                break
            seen_omem = max(seen_omem, omem)
        limit_kb = (32 if kind == "subscriber" else 8) * 1024
        check(omem_of(admin, "slow") is None and seen_omem > 0,
              f"a {kind} that never reads is closed at its limit (omem seen up to {seen_omem})")
        check_memory(peak - base <= limit_kb + 12 * 1024,
              f"it cost {peak - base} KiB at most (its limit {limit_kb} KiB, + 12 MiB for the "
              f"messages in flight)")
        s.close()
        time.sleep(0.5)
        after = rss_kb(pid)
        check_memory(after <= base * 1.1 + 2048,
              f"memory back after the {kind}: {after} KiB (before: {base})")
    log = log_of("limits")
    check("closed for overcoming of output buffer limits" in log, "the closings logged in Redis's words")
    info = admin.command("INFO", "clients")[1]
    recent = int(info.split(b"client_recent_max_output_buffer:")[1].split(b"\r\n")[0])
    check(recent > 1 << 20, f"INFO's client_recent_max_output_buffer shows it ({recent})")
    # A normal client's reply past its limit: closed, nothing sent.
    admin.command("CONFIG", "SET", "client-output-buffer-limit", "normal 100000 0 0")
    admin.command("RPUSH", "big", *([b"x" * 1000] * 150))
    s = socket.create_connection(("127.0.0.1", port), timeout=3)
    s.sendall(b"AUTH secret\r\n")
    authenticated = s.recv(100) == b"+OK\r\n"
    s.sendall(b"LRANGE big 0 -1\r\n")
    try:
        got = s.recv(65536)
    except (socket.timeout, ConnectionResetError):
        got = b"(no answer)"
    s.close()
    check(authenticated and got == b"", f"a reply past the normal limit is never sent; the client is "
                                        f"closed ({got[:30]!r})")
    admin.command("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0")
    admin.command("DEL", "big")


def holding(port, name, declared, sent, no_evict=False):
    """A client (authenticated, named, NO-EVICT if asked) that sent a SET
    of key "held" up to the header of its value of `declared` bytes, and
    `sent` of them."""
    s = socket.create_connection(("127.0.0.1", port), timeout=3)
    s.sendall(b"AUTH secret\r\nCLIENT SETNAME " + name.encode() + b"\r\n" +
              (b"CLIENT NO-EVICT on\r\n" if no_evict else b""))
    got = b""
    while got.count(b"\r\n") < (3 if no_evict else 2):
        got += s.recv(100)
    s.sendall(b"*3\r\n$3\r\nSET\r\n$4\r\nheld\r\n$%d\r\n" % declared + b"v" * sent)
    return s


def listed(admin):
    """CLIENT LIST's lines by name: {name: {field: value}}."""
    clients = {}
    for line in admin.command("CLIENT", "LIST")[1].decode().splitlines():
        fields = dict(f.split("=", 1) for f in line.split(" ") if "=" in f)
        clients[fields["name"]] = fields
    return clients


def closed_by_server(s):
    try:
        return s.recv(100) == b""
    except (socket.timeout, ConnectionResetError):
        return False


def client_eviction(port):
    """maxmemory-clients, as Redis 7.0's client eviction: the largest clients
    go first, until all together hold less than the limit; on a server of
    two I/O threads, so that clients of one loop evict those of the other."""
    admin = Client(port)
    admin.command("AUTH", "secret")
    admin.command("CLIENT", "SETNAME", "admin")
    check(admin.command("CONFIG", "SET", "maxmemory-clients", "10%") == (b"+", b"OK") and
          config_get(admin, "maxmemory-clients") == b"10%", "maxmemory-clients takes a percentage")
    reply = admin.command("CONFIG", "SET", "maxmemory-clients", "lots")
    check(reply[0] == b"-" and b"argument must be a memory or percent value" in reply[1],
          f"a bad maxmemory-clients is refused naming why ({reply[1][:90]!r})")
    admin.command("CONFIG", "SET", "maxmemory-clients", "0")
    kib = 1024
    held = {name: holding(port, name, size, size // 2)
            for name, size in (("small", 100 * kib), ("middle", 300 * kib), ("large", 600 * kib))}
    check(wait_for(lambda: all(int(listed(admin).get(n, {}).get("qbuf", 0)) >= size // 2 for n, size in
                               (("small", 100 * kib), ("middle", 300 * kib), ("large", 600 * kib))), 5),
          "three clients each hold half of a large argument")
    tot = {n: int(f["tot-mem"]) for n, f in listed(admin).items()}
    check(tot["large"] >= 600 * kib and tot["middle"] >= 300 * kib,
          f"tot-mem counts an argument at its declared length, as Redis allocates it ({tot})")
    # Lowered below the three: the largest goes, at once.
    admin.command("CONFIG", "SET", "maxmemory-clients", str(tot["small"] + tot["middle"] + 64 * kib))
    names = listed(admin)
    check("large" not in names and "small" in names and "middle" in names and "admin" in names,
          f"lowering maxmemory-clients evicts the largest client only ({sorted(names)})")
    check(closed_by_server(held["large"]), "the evicted client's connection is closed")
    info = admin.command("INFO", "stats")[1]
    check(b"evicted_clients:1\r\n" in info, "INFO counts it (evicted_clients:1)")
    check("Evicting client: " in log_of("limits") and "name=large" in log_of("limits"),
          "the eviction logged in Redis's words")
    # CLIENT NO-EVICT: passed by, and not counted.
    keeper = holding(port, "keeper", 800 * kib, 0, no_evict=True)
    time.sleep(0.2)
    names = listed(admin)
    check("keeper" in names and "e" in names["keeper"]["flags"] and "small" in names and
          "middle" in names, f"a NO-EVICT client (flag e) past the limit stays, and evicts no other "
                             f"({sorted(names)})")
    # A request past the limit on its own: evicted at its header, never run.
    admin.command("CONFIG", "SET", "maxmemory-clients", "1mb")
    big = holding(port, "big", 2 << 20, 0)
    check(wait_for(lambda: "big" not in listed(admin), 5) and closed_by_server(big),
          "a client announcing an argument past the limit is evicted before sending it")
    check(admin.command("EXISTS", "held") == (b":", b"0"), "... and its command never ran")
    # MULTI's queue counts.
    s = socket.create_connection(("127.0.0.1", port), timeout=3)
    s.sendall(b"AUTH secret\r\nCLIENT SETNAME queuer\r\nMULTI\r\n")
    queued = 0
    try:
        for _ in range(20):
            s.sendall(Client.encode(["SET", "queued", b"q" * (100 * kib)]))
            time.sleep(0.02)
            queued += 1
            if "queuer" not in listed(admin):
                break
    except (BrokenPipeError, ConnectionResetError):
        pass
    check("queuer" not in listed(admin) and queued < 20,
          f"commands queued in MULTI past the limit evict their client (after {queued} of 100 KiB)")
    check(admin.command("EXISTS", "queued") == (b":", b"0"), "... and nothing queued ran")
    # Off: nothing is evicted.
    admin.command("CONFIG", "SET", "maxmemory-clients", "0")
    big = holding(port, "big", 2 << 20, 1 << 20)
    time.sleep(0.2)
    check("big" in listed(admin), "with maxmemory-clients 0 nothing is evicted")
    for sock in [big, keeper, *held.values()]:
        sock.close()


def oom_score(port, pid):
    """oom-score-adj and its values act on the process's oom_score_adj, as
    Redis's: relative to what it was, absolute, and back when turned off."""
    admin = Client(port)
    admin.command("AUTH", "secret")

    def score():
        with open(f"/proc/{pid}/oom_score_adj") as f:
            return int(f.read())

    base = score()
    admin.command("CONFIG", "SET", "oom-score-adj-values", "10 20 30", "oom-score-adj", "yes")
    check(score() == base + 10, f"oom-score-adj yes: the primary's value added to the score ({score()})")
    admin.command("CONFIG", "SET", "oom-score-adj", "absolute")
    check(score() == 10, f"oom-score-adj absolute: the value itself ({score()})")
    admin.command("CONFIG", "SET", "oom-score-adj", "no")
    check(score() == base, f"oom-score-adj no: the score as it was ({score()})")
    reply = admin.command("CONFIG", "SET", "oom-score-adj-values", "0 0 2001")
    check(reply[0] == b"-" and b"must be between -2000 and 2000" in reply[1],
          f"a value out of range is refused as Redis refuses it ({reply[1][:100]!r})")


def descriptors(directory):
    port, proc = checks.start_server(server_bin, directory)
    keep = Client(port)
    check(keep.command("SET", "before", "1") == (b"+", b"OK"), "a write before the descriptors run out")
    soft = soft_nofile(proc.pid)
    used = len(os.listdir(f"/proc/{proc.pid}/fd"))
    limit = used + 16
    subprocess.run(["prlimit", "--pid", str(proc.pid), f"--nofile={limit}:"], check=True)
    idle = []
    for _ in range(40):
        idle.append(socket.create_connection(("127.0.0.1", port), timeout=1))
    # (The kernel completes the connections at once; the server accepts them
    # in its own time, until the descriptors run out.)
    check(wait_for(lambda: len(os.listdir(f"/proc/{proc.pid}/fd")) >= limit, 30),
          "the idle connections take every descriptor left")
    t0 = time.time()
    pong, ok = keep.command("PING"), keep.command("SET", "during", "1")
    took = time.time() - t0
    check(pong == (b"+", b"PONG") and ok == (b"+", b"OK") and took < TIME_SLACK,
          f"out of descriptors, a connected client is answered ({pong}, {ok}) in {took:.3f} s")
    save = keep.command("SAVE")
    check(save[0] == b"-" and b"Too many open files" in save[1],
          f"a flush that needs a file fails naming the cause ({save[1][:80]!r})")
    refused = keep.command("SET", "refused", "1")
    check(refused[0] == b"-", f"writes are refused while RocksDB's error stands ({refused[1][:60]!r})")
    cpu0 = cpu_s(proc.pid)
    time.sleep(2)
    spent = cpu_s(proc.pid) - cpu0
    check(spent < 0.5 * TIME_SLACK, f"accept does not spin while out of descriptors ({spent:.2f} CPU s in 2 s)")
    for s in idle:
        s.close()
    subprocess.run(["prlimit", "--pid", str(proc.pid), f"--nofile={soft}:"], check=True)
    t0 = time.time()
    while keep.command("SET", "after", "1") != (b"+", b"OK") and time.time() - t0 < 10:
        time.sleep(0.02)
    took = time.time() - t0
    check(took < TIME_SLACK, f"writes work again {took:.3f} s after the descriptors came back")
    fresh = Client(port, connect_timeout=2)
    check(fresh.command("PING") == (b"+", b"PONG"), "new clients connect again, no restart")
    stop([proc])
    port, proc = checks.start_server(server_bin, directory)
    c = Client(port)
    kept = [c.command("GET", k) for k in ("before", "during", "after", "refused")]
    check(kept == [(b"$", b"1")] * 3 + [(b"$", None)],
          f"after a restart the acknowledged writes are there and the refused one is not ({kept})")
    stop([proc])


def disk_full(mount):
    os.makedirs(mount, exist_ok=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", mount]).returncode != 0:
        print("skipped: the disk-full probe (cannot mount a tmpfs here)")
        return
    try:
        ballast = os.path.join(mount, "ballast")
        with open(ballast, "wb") as f:
            f.write(b"\0" * (38 << 20))
        directory = os.path.join(mount, "db")
        port, proc = checks.start_server(server_bin, directory)
        acknowledged, first_error = [], None
        clients = [Client(port) for _ in range(4)]
        value = b"v" * 65536
        # Four clients pipelining 64 KiB SETs until the disk is full.
        for round_ in range(200):
            for n, c in enumerate(clients):
                keys = [f"k{round_}-{n}-{i}" for i in range(8)]
                c.sock.sendall(b"".join(c.encode(["SET", k, value]) for k in keys))
            for n, c in enumerate(clients):
                for i in range(8):
                    reply = c.reply()
                    if reply == (b"+", b"OK"):
                        acknowledged.append(f"k{round_}-{n}-{i}")
                    elif first_error is None:
                        first_error = reply[1]
            if first_error is not None:
                break
        check(proc.poll() is None, "the server lives through a full disk")
        check(first_error is not None and b"No space left on device" in first_error,
              f"writes are refused naming the cause ({(first_error or b'')[:70]!r})")
        c = Client(port)
        check(c.command("GET", acknowledged[0])[1] == value, "reads go on")
        info = c.command("INFO", "persistence")[1]
        check(b"storage_status:err" in info and b"aof_last_write_status:err" in info,
              "INFO tells the error")
        os.remove(ballast)
        t0 = time.time()
        while c.command("SET", "after", "1") != (b"+", b"OK") and time.time() - t0 < 10:
            time.sleep(0.02)
        took = time.time() - t0
        check(took < TIME_SLACK, f"writes work again {took:.3f} s after space was freed")
        acknowledged.append("after")
        stop([proc])
        port, proc = checks.start_server(server_bin, directory)
        c = Client(port)
        lost = [k for k in acknowledged if c.command("EXISTS", k) != (b":", b"1")]
        check(not lost, f"after a restart all {len(acknowledged)} acknowledged writes are there "
                        f"({len(lost)} lost)")
        stop([proc])
    finally:
        # (The server's log, out of the file system that goes.)
        log = os.path.join(mount, "db.log")
        if os.path.exists(log):
            shutil.copy(log, os.path.join(tmp, "disk-full.log"))
            checks.logs = [os.path.join(tmp, "disk-full.log") if x == log else x for x in checks.logs]
        subprocess.run(["umount", "-l", mount])


def protected_mode():
    """A client in a network namespace of the test's own, over a veth
    pair with link-local addresses, asks servers bound to 0.0.0.0."""
    ns = f"teksdb-limits-{os.getpid()}"
    host_if, ns_if = f"tl{os.getpid() % 100000}a", f"tl{os.getpid() % 100000}b"
    setup = [["ip", "netns", "add", ns],
             ["ip", "link", "add", host_if, "type", "veth", "peer", "name", ns_if],
             ["ip", "link", "set", ns_if, "netns", ns],
             ["ip", "addr", "add", "169.254.213.1/30", "dev", host_if],
             ["ip", "link", "set", host_if, "up"],
             ["ip", "netns", "exec", ns, "ip", "addr", "add", "169.254.213.2/30", "dev", ns_if],
             ["ip", "netns", "exec", ns, "ip", "link", "set", ns_if, "up"]]
    try:
        for step in setup:
            if subprocess.run(step, stderr=subprocess.DEVNULL).returncode != 0:
                print(f"skipped: protected mode (cannot {' '.join(step[:3])} here)")
                return

        def ask(port):
            script = ("import socket; s = socket.create_connection(('169.254.213.1', %d), timeout=5); "
                      "s.sendall(b'PING\\r\\n'); import sys; sys.stdout.buffer.write(s.recv(4096))" % port)
            return subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", script],
                                  capture_output=True, timeout=20).stdout

        directory = os.path.join(tmp, "protected")
        port, proc = checks.start_server(server_bin, directory, "--bind", "0.0.0.0")
        redis_dir = os.path.join(tmp, "protected-redis")
        os.makedirs(redis_dir)
        redis_port, redis = start_redis(redis_dir, "--bind", "0.0.0.0")
        time.sleep(0.5)
        ours, theirs = ask(port), ask(redis_port)
        check(ours.startswith(b"-DENIED Redis is running in protected mode") and ours == theirs,
              f"protected mode: a non-loopback client gets redis-server's DENIED, word for word "
              f"({ours[:50]!r})")
        local = Client(port)
        check(local.command("PING") == (b"+", b"PONG"), "a loopback client is served")
        local.command("CONFIG", "SET", "requirepass", "secret")
        check(ask(port) == b"-NOAUTH Authentication required.\r\n",
              "with a password, a non-loopback client is served (NOAUTH until it authenticates)")
        local.command("AUTH", "secret")
        local.command("CONFIG", "SET", "requirepass", "")
        local.command("CONFIG", "SET", "protected-mode", "no")
        check(ask(port) == b"+PONG\r\n", "protected-mode no serves it")
        stop([proc, redis])
    finally:
        subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)
        subprocess.run(["ip", "link", "del", host_if], stderr=subprocess.DEVNULL)


def config_get(client, name):
    return client.command("CONFIG", "GET", name)[1][1][1]


def config_file():
    directory = os.path.join(tmp, "configured")
    include = os.path.join(tmp, "included.conf")
    with open(include, "w") as f:
        f.write("maxmemory 1gb\n")
    conf = os.path.join(tmp, "teksdb.conf")
    port = free_port()
    with open(conf, "w") as f:
        f.write(f"# a comment\ndir {directory}\nport {port}\nrequirepass \"a secret\"\n"
                f"client-output-buffer-limit pubsub 1mb 512kb 10\nslave-priority 50\n"
                f"include {include}\n")
    log = open(os.path.join(tmp, "configured.log"), "w")
    proc = subprocess.Popen([server_bin, conf, "--maxclients", "77"], stdout=log, stderr=log)
    c = Client(port)
    check(c.command("AUTH", "a secret") == (b"+", b"OK"), "the password from the file (quoted)")
    got = {k: config_get(c, k) for k in ("maxclients", "maxmemory", "replica-priority",
                                         "client-output-buffer-limit")}
    check(got["maxclients"] == b"77" and got["maxmemory"] == b"1073741824"
          and got["replica-priority"] == b"50"
          and got["client-output-buffer-limit"].endswith(b"pubsub 1048576 524288 10"),
          f"the file's directives, an include's and a flag's act ({got})")
    c.command("CONFIG", "SET", "replica-priority", "7")
    c.command("CONFIG", "SET", "notify-keyspace-events", "KEA")
    check(c.command("CONFIG", "REWRITE") == (b"+", b"OK"), "CONFIG REWRITE")
    text = open(conf).read()
    check("replica-priority 7" in text and "slave-priority" not in text and "# a comment" in text
          and "notify-keyspace-events AKE" in text and f"include {include}" in text,
          "the rewrite keeps the file's lines, sets the changed ones where they were, appends the new")
    stop([proc])
    proc = subprocess.Popen([server_bin, conf], stdout=log, stderr=log)
    c = Client(port)
    c.command("AUTH", "a secret")
    check(config_get(c, "replica-priority") == b"7",
          "a restart reads the rewritten file")
    stop([proc])
    # The example file the project ships starts a server as it is.
    example = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "server", "teksdb.conf")
    port = free_port()
    proc = subprocess.Popen([server_bin, example, "--dir", os.path.join(tmp, "example"), "--port", str(port)],
                            stdout=log, stderr=log)
    c = Client(port)
    check(c.command("PING") == (b"+", b"PONG") and config_get(c, "maxclients") == b"10000",
          "server/teksdb.conf, the example, starts a server with its defaults")
    stop([proc])
    for text, why in (("dir /tmp/x\nno-such-directive 1\n", ":2: unknown directive 'no-such-directive'"),
                      ("dir /tmp/x\nmaxclients many\n", ":2: 'maxclients': argument couldn't be parsed"),
                      ("dir /tmp/x\nrequirepass \"open\n", ":2: unbalanced quotes"),
                      (f"include {conf}.loop\n", "includes nested deeper")):
        bad = conf + ".bad"
        with open(bad, "w") as f:
            f.write(text)
        with open(conf + ".loop", "w") as f:
            f.write(f"include {conf}.loop\n")
        run = subprocess.run([server_bin, bad], capture_output=True, text=True, timeout=30)
        check(run.returncode == 1 and why in run.stderr,
              f"a bad file stops the start, naming the line: {run.stderr.strip()[:100]!r}")


def main():
    redis_dir = os.path.join(tmp, "redis")
    os.makedirs(redis_dir)
    redis_port, redis = start_redis(redis_dir, "--requirepass", "secret")
    port, proc = checks.start_server(server_bin, os.path.join(tmp, "limits"), "--requirepass", "secret")
    try:
        time.sleep(0.3)
        before_auth(port, redis_port, proc.pid)
        query_limits(port)
        maxclients(port, redis_port)
        output_limits(port, proc.pid)
        client_eviction(port)
        oom_score(port, proc.pid)
    finally:
        stop([proc, redis])
    descriptors(os.path.join(tmp, "descriptors"))
    if is_root:
        disk_full(os.path.join(tmp, "small"))
        protected_mode()
    else:
        print("skipped: the disk-full and protected-mode probes (they need root)")
    config_file()
    return checks.finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
