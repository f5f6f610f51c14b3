#!/usr/bin/env python3
"""Hash field expiration's cost (issue 55): --hashes hashes of 10 fields
(f1..f10, 8-byte values), then one field of each given a TTL (HEXPIRE 3600
FIELDS 1 f1), on teksdb-server and on a Redis 7.4 (REDIS_SERVER: Debian's
7.0 has no HEXPIRE), and on teksdb-server without the TTLs (what the
deadlines add). Each server starts fresh on CPU 0 (taskset); the loads and
redis-benchmark run on CPU 1. Per server: resident memory after the load
and a SAVE (teksdb-server's memtables flushed; and its files on disk:
its data leaves memory for SST files),
and the server's own CPU per request (/proc/PID/stat, every thread) for
    load      HSET h:N f1 v .. f10 v (pipelined, 1,000 at a time)
    hexpire   HEXPIRE h:N 3600 FIELDS 1 f1 (pipelined)
    hgetall   HGETALL h:__rand_int__ (redis-benchmark -P 16 -c 50)
    hset      HSET h:__rand_int__ f2 v (a field without a TTL rewritten)
Prints a table, medians of --repeat runs, and writes it with the raw runs
to --out.

Usage: scripts/bench_hash_ttl.py [--hashes N] [--requests N] [--repeat N]
                                 [--out DIR] [--server PATH]
Environment: REDIS_SERVER, a redis-server 7.4 (../shared/redis/README.md);
without it the Redis column is left out.
"""

import argparse
import contextlib
import io
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
from resp_client import Client, free_port  # noqa: E402
from server_checks import rss_kb, stop  # noqa: E402
from text_table import print_table  # noqa: E402  (scripts/, this script's own folder)

BATCH = 1000
FIELDS = 10


def command(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def pipelined(port, commands, lines_per_reply):
    """Sends `commands` (RESP bytes) BATCH at a time, reading the replies
    (each `lines_per_reply` lines of integers); fails on an error reply."""
    s = socket.create_connection(("127.0.0.1", port))
    for start in range(0, len(commands), BATCH):
        chunk = commands[start:start + BATCH]
        s.sendall(b"".join(chunk))
        want = len(chunk) * lines_per_reply
        got = b""
        while got.count(b"\r\n") < want:
            data = s.recv(1 << 20)
            if not data:
                raise ConnectionError("server closed the connection")
            got += data
        if b"-" in got[:1] or b"\r\n-" in got:
            raise RuntimeError(f"error reply: {got[:200]!r}")
    s.close()


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start(kind, binary, tmp):
    port = free_port()
    directory = os.path.join(tmp, kind)
    os.makedirs(directory, exist_ok=True)
    if kind == "redis":
        args = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                "no", "--dir", directory]
    else:
        args = [binary, "--dir", os.path.join(directory, "db"), "--port", str(port),
                "--threads", "1"]
    proc = subprocess.Popen(["taskset", "-c", "0", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            Client(port).command("PING")
            break
        except OSError:
            time.sleep(0.1)
    return port, proc, directory


def disk_mb(directory):
    total = 0
    for root, _, files in os.walk(directory):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total / 1e6


def run_one(kind, binary, with_ttl, hashes, requests, tmp):
    port, proc, directory = start(kind, binary, tmp)
    result = {}
    try:
        load = [command("HSET", b"h:%012d" % i, *[x for f in range(1, FIELDS + 1)
                                                  for x in (b"f%d" % f, b"v%07d" % f)])
                for i in range(hashes)]
        before = cpu_seconds(proc.pid)
        pipelined(port, load, 1)
        result["load"] = (cpu_seconds(proc.pid) - before) / hashes * 1e6
        if with_ttl:
            expire = [command("HEXPIRE", b"h:%012d" % i, 3600, "FIELDS", 1, "f1")
                      for i in range(hashes)]
            before = cpu_seconds(proc.pid)
            pipelined(port, expire, 2)
            result["hexpire"] = (cpu_seconds(proc.pid) - before) / hashes * 1e6
        # SAVE: teksdb-server flushes its memtables (what the writes left
        # there, up to its write buffers, would be RSS otherwise), Redis
        # writes its RDB; then a flush or compaction under way settles.
        Client(port).command("SAVE")
        time.sleep(2)
        result["rss_mb"] = rss_kb(proc.pid) / 1024
        result["disk_mb"] = disk_mb(directory) if kind != "redis" else 0.0
        for name, args in (("hgetall", ["hgetall", "h:__rand_int__"]),
                           ("hset", ["hset", "h:__rand_int__", "f2", "v"])):
            before = cpu_seconds(proc.pid)
            subprocess.run(["taskset", "-c", "1", "redis-benchmark", "-p", str(port), "-P", "16",
                            "-c", "50", "-n", str(requests), "-r", str(hashes), "-q", *args],
                           check=True, stdout=subprocess.DEVNULL)
            result[name] = (cpu_seconds(proc.pid) - before) / requests * 1e6
        ttl_fields = Client(port).command("HTTL", b"h:%012d" % (hashes // 2), "FIELDS", 1, "f1")
        result["ttl_ok"] = (ttl_fields[1][0][1] != b"-1") == with_ttl
    finally:
        stop([proc])
        shutil.rmtree(directory, ignore_errors=True)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hashes", type=int, default=1000000)
    parser.add_argument("--requests", type=int, default=1000000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default="bench-hash-ttl")
    parser.add_argument("--server", default=os.path.join(ROOT, "build", "server", "teksdb-server"))
    args = parser.parse_args()
    redis = os.environ.get("REDIS_SERVER")
    setups = [("teks", args.server, True), ("teks_no_ttl", args.server, False)]
    if redis:
        setups.append(("redis", redis, True))
    else:
        print("bench_hash_ttl: REDIS_SERVER not set: no Redis 7.4 column", file=sys.stderr)
    tmp = tempfile.mkdtemp(prefix="teksdb-bench-hash-ttl-")
    runs = []
    try:
        for r in range(args.repeat):
            for name, binary, with_ttl in setups:
                print(f"[bench_hash_ttl] run {r + 1}/{args.repeat}: {name}, {args.hashes} hashes",
                      file=sys.stderr, flush=True)
                kind = "redis" if name == "redis" else "teks"
                result = run_one(kind, binary, with_ttl, args.hashes, args.requests, tmp)
                if not result.pop("ttl_ok"):
                    raise RuntimeError(f"{name}: HTTL does not show the TTLs the run set")
                runs.append((name, result))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    columns = ["rss_mb", "disk_mb", "load", "hexpire", "hgetall", "hset"]
    rows = []
    for name, _, _ in setups:
        mine = [res for n, res in runs if n == name]
        rows.append([name] + [f"{statistics.median(res[c] for res in mine):.2f}"
                              if c in mine[0] else "-" for c in columns])
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        print_table(["server", "RSS MB", "disk MB", "load (HSET 10)", "HEXPIRE", "HGETALL",
                     "HSET 1"], rows, 1, 0)
    text = (f"{args.hashes} hashes x {FIELDS} fields, one field each with a TTL (teks_no_ttl: "
            f"none); server on CPU 0, client on CPU 1; medians of {args.repeat}\n"
            "RSS and disk in MB; CPU per request in microseconds of server CPU\n\n" +
            printed.getvalue())
    print(text)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "table.txt"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(args.out, "runs.tsv"), "w") as f:
        f.write("server\t" + "\t".join(columns) + "\n")
        for name, res in runs:
            f.write(name + "\t" + "\t".join(f"{res.get(c, float('nan')):.3f}" for c in columns) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
