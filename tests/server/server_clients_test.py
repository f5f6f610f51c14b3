#!/usr/bin/env python3
"""teksdb-server with real clients and bad ones:
  - redis-cli and redis-benchmark (Debian's redis-tools) work against it;
  - SPOP's random draw returns distinct members and removes them;
  - 8 clients incrementing one counter never lose an increment, nor do 4
    clients pipelining increments of shared keys in different orders (each
    pipeline's writes are one batch, under locks taken as they come);
  - 10,000 pipelined commands get 10,000 replies, in order;
  - malformed requests (bad lengths, absurd bulk sizes) get Redis's error
    and a closed connection, while every other client keeps being served;
  - a client that stalls mid-request, or pipelines replies it never reads,
    holds the server's memory to a bound and blocks nobody else;
  - with --sync, every acknowledged write survives kill -9, also when the
    server is killed in the middle of pipelined writes.

Usage: server_clients_test.py PATH/TO/teksdb-server
"""

import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from server_checks import Checks, rss_kb  # noqa: E402
from resp_client import Client  # noqa: E402

checks = Checks("server_clients")
check = checks.check


def raw(port, data, read_timeout=5):
    """Sends raw bytes; returns everything the server sent until it closed
    (or read_timeout passed) and whether it closed."""
    s = socket.create_connection(("127.0.0.1", port), timeout=read_timeout)
    s.sendall(data)
    got = b""
    closed = False
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                closed = True
                break
            got += chunk
    except socket.timeout:
        pass
    s.close()
    return got, closed


def main():
    server_bin = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="teksdb-clients-")
    port, proc = checks.start_server(server_bin, os.path.join(tmp, "db"))
    try:
        # --- real clients -------------------------------------------------------
        cli = lambda *a: subprocess.run(["redis-cli", "-p", str(port), *a], capture_output=True,
                                        text=True, timeout=30).stdout.strip()
        check(cli("SET", "greeting", "hello world") == "OK" and cli("GET", "greeting") == "hello world",
              "redis-cli SET and GET")
        bench = subprocess.run(["redis-benchmark", "-p", str(port), "-q", "-n", "5000", "-c", "10",
                                "-P", "16", "-t", "set,get,incr"], capture_output=True, text=True,
                               timeout=120)
        check(bench.returncode == 0 and bench.stdout.count("requests per second") == 3,
              f"redis-benchmark set,get,incr runs ({bench.stdout.strip()[-200:]!r})")

        # --- concurrent increments -----------------------------------------------
        def incr_many():
            c = Client(port)
            for _ in range(500):
                c.command("INCR", "counter")
                c.command("INCRBY", "counter", "2")
        threads = [threading.Thread(target=incr_many) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        check(Client(port).command("GET", "counter") == (b"$", b"12000"),
              "8 clients x 500 x (INCR + INCRBY 2): counter is 12000")

        def pipelined_incr(offset):
            c = Client(port)
            keys = [f"shared{j}" for j in range(6)]
            keys = keys[offset:] + keys[:offset]  # each client its own lock order
            for _ in range(100):
                batch = [("INCR", k) for k in keys] + [("HINCRBY", "hcount", keys[0], "1")]
                c.pipeline(batch)
        threads = [threading.Thread(target=pipelined_incr, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        c = Client(port)
        counts = [c.command("GET", f"shared{j}")[1] for j in range(6)]
        per_field = [c.command("HGET", "hcount", f"shared{j}")[1] for j in range(4)]
        check(counts == [b"400"] * 6 and per_field == [b"100"] * 4,
              f"4 clients x 100 pipelines of 7 increments, keys in 4 orders: {counts}, {per_field}")

        # --- SPOP draws at random: check what it returns and leaves --------------
        c = Client(port)
        c.command("SADD", "letters", "a", "b", "c", "d", "e")
        popped = [x[1] for x in c.command("SPOP", "letters", "3")[1]]
        left = sorted(x[1] for x in c.command("SMEMBERS", "letters")[1])
        check(len(set(popped)) == 3 and sorted(popped + left) == [b"a", b"b", b"c", b"d", b"e"],
              f"SPOP 3 of 5 returns 3 distinct members and removes them ({popped}, left {left})")

        # --- INFO, asked often and at once (as Sentinels ask it) -----------------
        answers = []

        def infos():
            c = Client(port)
            c.sock.settimeout(10)
            for _ in range(20):
                answers.append(c.command("INFO")[0] == b"$")
        threads = [threading.Thread(target=infos) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        c = Client(port)
        keys = c.command("INFO", "keyspace")[1].decode().split("keys=")[1].split(",")[0]
        check(len(answers) == 60 and all(answers) and int(keys) == int(c.command("DBSIZE")[1]),
              f"3 clients x 20 INFO at once all answered; INFO keyspace agrees with DBSIZE ({keys})")

        # --- pipelining -------------------------------------------------------
        c = Client(port)
        n = 10000
        c.sock.sendall(b"".join(b"*3\r\n$3\r\nSET\r\n$2\r\np%d\r\n$%d\r\n%d\r\n" % (i % 10, len(str(i)), i)
                                for i in range(n)))
        replies = [c.reply() for _ in range(n)]
        check(all(r == (b"+", b"OK") for r in replies), f"{n} pipelined SETs, {n} replies")
        c.sock.sendall(b"".join(b"*2\r\n$3\r\nGET\r\n$2\r\np%d\r\n" % i for i in range(10)))
        check([c.reply()[1] for _ in range(10)] == [str(n - 10 + i).encode() for i in range(10)],
              "pipelined GETs answer in order")

        # --- malformed requests ------------------------------------------------
        for data, error in [(b"*x\r\n", b"-ERR Protocol error: invalid multibulk length\r\n"),
                            (b"*1\r\n$99999999999\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),
                            (b"*1\r\n+PING\r\n", b"-ERR Protocol error: expected '$', got '+'\r\n"),
                            (b"SET \"a\r\n", b"-ERR Protocol error: unbalanced quotes in request\r\n")]:
            got, closed = raw(port, data)
            check(got == error and closed, f"{data!r}: Redis's error, then closed")
        got, closed = raw(port, b"x" * (70 * 1024))
        check(got == b"-ERR Protocol error: too big inline request\r\n" and closed,
              "a 70 KiB inline request: refused and closed")

        # --- stalled and greedy clients -----------------------------------------
        stalled = socket.create_connection(("127.0.0.1", port))
        stalled.sendall(b"*2\r\n$3\r\nGET\r\n$536870912\r\nabc")  # never finishes
        Client(port).command("SET", "big", "x" * (1 << 20))
        before = rss_kb(proc.pid)
        greedy = socket.create_connection(("127.0.0.1", port))
        greedy.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        greedy.sendall(b"*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n" * 2000)  # 2 GB of replies, never read
        time.sleep(2)
        grown_mb = (rss_kb(proc.pid) - before) / 1024
        check(grown_mb < 64, f"a client that never reads 2 GB of replies grows the server by {grown_mb:.1f} MB")
        start_t = time.time()
        check(Client(port).command("PING") == (b"+", b"PONG") and time.time() - start_t < 2,
              "other clients are served beside the stalled and the greedy one")
        stalled.close()
        greedy.close()
    finally:
        proc.kill()
        proc.wait()

    # --- kill -9 with --sync ---------------------------------------------------
    directory = os.path.join(tmp, "sync")
    port, proc = checks.start_server(server_bin, directory, "--sync")
    c = Client(port)
    acknowledged = 0
    for i in range(300):
        if c.command("SET", f"durable{i}", str(i)) == (b"+", b"OK"):
            acknowledged = i + 1
    proc.kill()
    proc.wait()
    _, proc = checks.start_server(server_bin, directory, port=port)
    c = Client(port)
    kept = sum(c.command("GET", f"durable{i}") == (b"$", str(i).encode()) for i in range(acknowledged))
    check(acknowledged == 300 and kept == acknowledged,
          f"--sync: {kept} of {acknowledged} acknowledged writes survive kill -9")

    # Killed while pipelines of writes are in flight.
    acknowledged_batches = []

    def pipelined_writer():
        w = Client(port)
        n = 0
        try:
            while True:
                batch = [("SET", f"piped{n}-{j}", str(j)) for j in range(10)] + [
                    ("HSET", f"pipedh{n}", "f", str(n)), ("RPUSH", "pipedlist", str(n))]
                replies = w.pipeline(batch)
                if all(r[0] in (b"+", b":") for r in replies):
                    acknowledged_batches.append(n)
                n += 1
        except (ConnectionError, OSError):
            pass
    writer = threading.Thread(target=pipelined_writer)
    writer.start()
    time.sleep(1.5)
    proc.kill()
    proc.wait()
    writer.join()
    _, proc = checks.start_server(server_bin, directory, port=port)
    c = Client(port)
    listed = [int(x[1]) for x in c.command("LRANGE", "pipedlist", 0, -1)[1]]
    lost = [n for n in acknowledged_batches
            if [c.command("GET", f"piped{n}-{j}")[1] for j in range(10)] != [str(j).encode() for j in range(10)]
            or c.command("HGET", f"pipedh{n}", "f")[1] != str(n).encode() or n not in listed]
    check(len(acknowledged_batches) > 10 and not lost,
          f"--sync, killed mid-pipeline: {len(acknowledged_batches)} acknowledged pipelines of 12 "
          f"writes, {len(lost)} lost ({lost[:5]})")
    proc.kill()
    proc.wait()
    return checks.finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
