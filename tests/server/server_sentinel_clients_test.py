#!/usr/bin/env python3
"""redis-py's Sentinel support against teksdb-servers: a primary, a replica
and three Sentinels; `redis.sentinel.Sentinel(...).master_for()` writes to
the primary and `slave_for()` reads from the replica, as an application
does. After SIGKILL of the primary, the same master_for() finds the
promoted replica by itself (retrying as an application would) and what
it wrote before the failover, acknowledged by WAIT 1, is there.

Usage (through tests/server/with_redis_py.sh, which provides redis-py):
  server_sentinel_clients_test.py PATH/TO/teksdb-server
"""

import os
import sys
import tempfile
import time

import redis
from redis.sentinel import Sentinel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from server_checks import Checks, sentinels_know_all, start_sentinels, stop  # noqa: E402

checks = Checks("server_sentinel_clients")
check = checks.check
NAME = "teks"


def main():
    server_bin = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="teksdb-sentinel-clients-")
    procs = []
    sentinel_ports = []
    try:
        primary_port, primary = checks.start_server(server_bin, os.path.join(tmp, "primary"))
        procs.append(primary)
        replica_port, replica = checks.start_server(server_bin, os.path.join(tmp, "replica"),
                                                    "--replicaof", f"127.0.0.1 {primary_port}")
        procs.append(replica)
        sentinel_ports, sentinel_procs = start_sentinels(tmp, NAME, primary_port)
        procs.extend(sentinel_procs)
        sentinel = Sentinel([("127.0.0.1", p) for p in sentinel_ports], socket_timeout=2)
        deadline = time.time() + 60
        while time.time() < deadline and len(sentinel.discover_slaves(NAME)) < 1:
            time.sleep(0.2)
        check(sentinel.discover_master(NAME) == ("127.0.0.1", primary_port), "discover_master: the primary")
        check(sentinel.discover_slaves(NAME) == [("127.0.0.1", replica_port)], "discover_slaves: the replica")
        while time.time() < deadline and not sentinels_know_all(sentinel_ports, NAME, 1):
            time.sleep(0.2)
        check(sentinels_know_all(sentinel_ports, NAME, 1), "the Sentinels know the replica and each other")
        master = sentinel.master_for(NAME, socket_timeout=2)
        for i in range(100):
            master.set(f"before{i}", i)
        check(master.wait(1, 5000) == 1, "master_for() writes; WAIT 1 answers 1")
        reader = sentinel.slave_for(NAME, socket_timeout=2)
        check(reader.get("before99") == b"99", "slave_for() reads the replica")
        try:
            reader.set("x", "y")
            check(False, "slave_for() refuses writes")
        except redis.exceptions.ReadOnlyError:
            check(True, "slave_for() refuses writes (ReadOnlyError)")

        stop([primary])
        killed = time.time()
        written = False
        while time.time() - killed < 60 and not written:
            try:
                master.set("after", "failover")
                written = True
            except (redis.exceptions.ConnectionError, redis.exceptions.ReadOnlyError,
                    redis.exceptions.TimeoutError):
                time.sleep(0.2)
        check(written and sentinel.discover_master(NAME) == ("127.0.0.1", replica_port),
              f"after SIGKILL of the primary, master_for() writes to the promoted replica "
              f"({time.time() - killed:.1f} s)")
        check(all(master.get(f"before{i}") == str(i).encode() for i in range(100)),
              "every write acknowledged by WAIT 1 before the failover is there")
    except redis.exceptions.RedisError as e:
        # (A failure, with the servers' and Sentinels' logs printed below.)
        check(False, f"redis-py: {type(e).__name__}: {e}")
    finally:
        stop(procs)
    for i in range(len(sentinel_ports)):
        checks.logs.append(os.path.join(tmp, f"sentinel{i}.log"))
    return checks.finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
