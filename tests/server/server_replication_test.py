#!/usr/bin/env python3
"""teksdb-server's replication (server/replication/) between real servers on
the loopback, with every data type on the primary:
  - REPLICAOF at run time: a full sync of what the primary holds, then its
    writes streamed; the replica holds exactly the primary's data, is
    read-only (READONLY), and ROLE, INFO replication and WAIT 1 say so;
  - function libraries loaded on the primary run on the replica;
  - the role survives a restart of the replica (it continues, no second
    full sync), and a restart of the primary (a new history that the
    replica continues from, still no full sync);
  - a replica that fell behind the WAL's retention gets exactly one full
    sync, not a loop;
  - a failover by hand: the replica promoted (REPLICAOF NO ONE) while it
    lacks the primary's last writes; the old primary, made its replica,
    has writes the new history lacks: it is resynced whole (its extra
    writes gone), never continued;
  - bad input: a port where nothing listens, the server itself, a real
    redis-server, a bad port: Redis's errors or a down link with the
    reason in INFO, and the replica keeps serving its data; REPLICAOF NO
    ONE brings it back;
  - min-replicas-to-write refuses writes (NOREPLICAS) without enough
    replicas in reach; WAIT times out with 0 when no replica acknowledges;
  - FAILOVER (a planned switchover) while a writer increments a counter:
    the roles swap and every acknowledged increment is on the new primary;
    its errors are Redis's.

Usage: server_replication_test.py PATH/TO/teksdb-server
"""

import os
import signal
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import server_checks  # noqa: E402
from server_checks import Checks, start_redis, stop  # noqa: E402
from resp_client import Client, free_port  # noqa: E402

checks = Checks("server_replication")
check = checks.check


class Server:
    """A connection to one server that reconnects when the server closed it
    (a replica closes every connection to swap a full sync's copy in, and
    may close a new one while it does)."""

    def __init__(self, port):
        self.port, self.client = port, Client(port)

    def _retrying(self, call):
        for attempt in range(50):
            try:
                return call(self.client)
            except (ConnectionError, OSError):
                if attempt == 49:
                    raise
                time.sleep(0.1)
                self.client = Client(self.port)

    def command(self, *args):
        return self._retrying(lambda c: c.command(*args))

    def pipeline(self, commands):
        return self._retrying(lambda c: c.pipeline(commands))


def snapshot(c):
    """Every key with its type and value, read through the protocol."""
    data = {}
    for key in sorted(x[1] for x in c.command("KEYS", "*")[1]):
        kind = c.command("TYPE", key)[1]
        if kind == b"string":
            value = c.command("GET", key)[1]
        elif kind == b"hash":
            value = sorted(x[1] for x in c.command("HGETALL", key)[1])
        elif kind == b"set":
            value = sorted(x[1] for x in c.command("SMEMBERS", key)[1])
        elif kind == b"zset":
            value = [x[1] for x in c.command("ZRANGE", key, 0, -1, "WITHSCORES")[1]]
        elif kind == b"list":
            value = [x[1] for x in c.command("LRANGE", key, 0, -1)[1]]
        else:
            value = None
        data[key] = (kind, value)
    return data


def write_mix(c, prefix, n):
    """n rounds of writes of every type, in pipelines."""
    for i in range(n):
        c.pipeline([["SET", f"{prefix}s{i}", f"v{i}"],
                    ["HSET", f"{prefix}h{i % 7}", f"f{i}", str(i)],
                    ["SADD", f"{prefix}set{i % 5}", str(i)],
                    ["ZADD", f"{prefix}z", str(i * 1.5), f"m{i}"],
                    ["RPUSH", f"{prefix}l{i % 3}", str(i)],
                    ["INCR", f"{prefix}counter"],
                    ["DEL", f"{prefix}s{i // 2}"] if i % 4 == 0 else ["PING"],
                    ["SET", f"{prefix}ttl{i}", "x", "PX", "600000"]])


def info(c, section="replication"):
    text = c.command("INFO", section)[1].decode()
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def wait_for(what, predicate, seconds=30):
    if server_checks.wait_for(predicate, seconds):
        return True
    print(f"(gave up waiting for {what})")
    return False


def in_sync(primary, replica):
    return wait_for("the replica to catch up", lambda: (
        info(replica).get("master_link_status") == "up" and
        int(info(replica)["slave_repl_offset"]) == int(info(primary)["master_repl_offset"])))


def full_syncs(log):
    with open(log) as f:
        return f.read().count("full sync of")


class Cluster:
    """The servers of this test, each on its own directory and port."""

    def __init__(self, server_bin, tmp, flags):
        self.server_bin, self.tmp, self.flags, self.procs, self.ports = server_bin, tmp, flags, {}, {}

    def start(self, name):
        port, proc = checks.start_server(self.server_bin, os.path.join(self.tmp, name),
                                         *self.flags.get(name, []), port=self.ports.get(name))
        self.procs[name], self.ports[name] = proc, port
        return Server(port)

    def kill(self, name):
        stop([self.procs.pop(name)])

    def log(self, name):
        return os.path.join(self.tmp, name + ".log")

    def stop_all(self):
        stop(list(self.procs.values()))


def sync_and_stream(cluster):
    primary = cluster.start("primary")
    write_mix(primary, "a", 300)
    replica = cluster.start("replica")
    replica.command("SET", "local", "dropped by the full sync")
    replica.command("CONFIG", "SET", "slowlog-max-len", "77")
    check(replica.command("REPLICAOF", "127.0.0.1", cluster.ports["primary"]) == (b"+", b"OK"),
          "REPLICAOF host port: OK")
    check(in_sync(primary, replica), "the replica catches up after its full sync")
    write_mix(primary, "b", 300)
    check(primary.command("WAIT", "1", "5000") == (b":", b"1"), "WAIT 1 after writes: 1")
    check(in_sync(primary, replica) and snapshot(replica) == snapshot(primary),
          f"the replica holds exactly the primary's data ({len(snapshot(primary))} keys)")
    check(replica.command("GET", "local") == (b"$", None), "the replica's own data went with the full sync")
    check(replica.command("CONFIG", "GET", "slowlog-max-len")[1][1][1] == b"77",
          "what CONFIG SET changed holds across the full sync's reopen")
    check(replica.command("SET", "k", "v") == (b"-", b"READONLY You can't write against a read only replica."),
          "a replica refuses writes: READONLY")
    check(replica.command("EVAL", "return redis.call('set', 'k', 'v')", "0")[0] == b"-",
          "a script's write on a replica fails")
    role = replica.command("ROLE")[1]
    check([x[1] for x in role[:4]] == [b"slave", b"127.0.0.1", str(cluster.ports["primary"]).encode(),
                                       b"connected"], f"ROLE on the replica: {role[:4]}")
    role = primary.command("ROLE")[1]
    check(role[0][1] == b"master" and len(role[2][1]) == 1, f"ROLE on the primary lists one replica")
    fields = info(primary)
    check(fields["connected_slaves"] == "1" and "state=online" in fields["slave0"] and
          f"port={cluster.ports['replica']}" in fields["slave0"], f"INFO slave0: {fields['slave0']}")
    check(len(info(primary, "server")["run_id"]) == 40, "INFO has a run_id")
    library = ("#!lua name=replicated\nredis.register_function{function_name='hello', "
               "callback=function() return 'hi' end, flags={'no-writes'}}")
    check(primary.command("FUNCTION", "LOAD", library) == (b"$", b"replicated"), "FUNCTION LOAD on the primary")
    check(in_sync(primary, replica) and replica.command("FCALL_RO", "hello", "0") == (b"$", b"hi"),
          "the library reaches the replica's script engine")
    check(full_syncs(cluster.log("replica")) == 1, "one full sync so far")
    return primary, replica


def restarts(cluster, primary):
    cluster.kill("replica")
    write_mix(primary, "c", 100)
    replica = cluster.start("replica")
    check(in_sync(primary, replica) and snapshot(replica) == snapshot(primary),
          "a replica killed and restarted keeps its role and catches up")
    check(full_syncs(cluster.log("replica")) == 1, "... by continuing, with no second full sync")
    replid = info(primary)["master_replid"]
    cluster.kill("primary")
    primary = cluster.start("primary")
    check(info(primary)["master_replid"] != replid and info(primary)["master_replid2"] == replid,
          "a restarted primary starts a new history, the old one as replid2")
    write_mix(primary, "d", 100)
    check(in_sync(primary, replica) and snapshot(replica) == snapshot(primary),
          "the replica continues across the primary's restart")
    check(full_syncs(cluster.log("replica")) == 1, "... still without a full sync")
    return primary, replica


def behind_the_retention(cluster, primary, replica):
    cluster.kill("replica")
    # Each SAVE moves the WAL files it flushed to the archive, and drops the
    # archived ones older than the primary's 1 s retention: after a few,
    # the replica's next sequence is gone.
    for round_number in range(4):
        write_mix(primary, f"e{round_number}", 50)
        primary.command("SAVE")
        time.sleep(1.2)
    primary.command("SAVE")
    replica = cluster.start("replica")
    check(in_sync(primary, replica) and snapshot(replica) == snapshot(primary),
          "a replica behind the WAL's retention is caught up")
    time.sleep(1)
    count = full_syncs(cluster.log("replica"))
    check(count == 2, f"... by exactly one more full sync, not a loop ({count} in all)")
    return replica


def failover_by_hand(cluster, primary, replica):
    # The replica stops hearing (SIGSTOP) while the primary takes writes.
    cluster.procs["replica"].send_signal(signal.SIGSTOP)
    primary.command("SET", "unreplicated", "lost in the failover")
    cluster.procs["replica"].send_signal(signal.SIGCONT)
    cluster.kill("primary")
    replica = Server(cluster.ports["replica"])
    check(replica.command("REPLICAOF", "NO", "ONE") == (b"+", b"OK"), "REPLICAOF NO ONE: promoted")
    check(replica.command("SET", "after", "failover") == (b"+", b"OK"), "the promoted replica takes writes")
    new_primary = replica
    old = cluster.start("primary")
    if old.command("GET", "unreplicated")[1] is None:
        print("(the write reached the replica before the stop; the divergence is not tested this time)")
    syncs_before = full_syncs(cluster.log("primary"))
    old.command("REPLICAOF", "127.0.0.1", cluster.ports["replica"])
    check(in_sync(new_primary, old) and snapshot(old) == snapshot(new_primary),
          "the old primary, made a replica of the promoted one, holds the new history exactly")
    time.sleep(2)
    syncs = full_syncs(cluster.log("primary")) - syncs_before
    check(syncs <= 1, f"... after at most one full sync, then it continues ({syncs})")
    check(old.command("GET", "unreplicated") == new_primary.command("GET", "unreplicated"),
          "its write the new history lacks is gone (resynced, never continued)")
    old.command("REPLICAOF", "NO", "ONE")
    return new_primary


def bad_input(cluster, server):
    before = snapshot(server)
    check(server.command("REPLICAOF", "127.0.0.1", "99999") == (b"-", b"ERR Invalid master port"),
          "REPLICAOF with a bad port: Redis's error")
    dead = free_port()
    server.command("REPLICAOF", "127.0.0.1", dead)
    check(wait_for("the link error", lambda: "cannot reach" in info(server).get("teksdb_link_error", "")) and
          info(server)["master_link_status"] == "down", "REPLICAOF where nothing listens: link down, reason in INFO")
    check(info(server)["slave_priority"] == "0", "a replica that never synced is never promotable (priority 0)")
    check(snapshot(server) == before, "... and the replica keeps serving its data")
    server.command("REPLICAOF", "127.0.0.1", cluster.ports["primary"])
    check(wait_for("the self error", lambda: "itself" in info(server).get("teksdb_link_error", "")),
          f"REPLICAOF itself: refused ({info(server).get('teksdb_link_error')})")
    redis_port, redis_proc = start_redis(cluster.tmp)
    try:
        server.command("REPLICAOF", "127.0.0.1", redis_port)
        check(wait_for("the format error", lambda: "not a teksdb-server" in info(server).get("teksdb_link_error", "")),
              f"REPLICAOF a real redis-server: refused ({info(server).get('teksdb_link_error')})")
    finally:
        stop([redis_proc])
    check(snapshot(server) == before, "after every refusal the data is untouched")
    check(server.command("REPLICAOF", "NO", "ONE") == (b"+", b"OK") and
          server.command("SET", "writable", "again") == (b"+", b"OK"), "REPLICAOF NO ONE: writable again")


def min_replicas_and_wait(server):
    server.command("CONFIG", "SET", "min-replicas-to-write", "1")
    check(server.command("SET", "k", "v") == (b"-", b"NOREPLICAS Not enough good replicas to write."),
          "min-replicas-to-write 1 without a replica: NOREPLICAS")
    check(server.command("GET", "k")[0] == b"$", "... reads still served")
    server.command("CONFIG", "SET", "min-replicas-to-write", "0")
    check(server.command("SET", "k", "v") == (b"+", b"OK"), "min-replicas-to-write 0: writes again")
    started = time.time()
    check(server.command("WAIT", "1", "200") == (b":", b"0") and time.time() - started >= 0.15,
          "WAIT 1 200 without a replica: 0 after the timeout")


def planned_failover(cluster, primary, replica, replica_port):
    """FAILOVER while a writer increments a counter: every acknowledged
    increment is on the new primary, and the roles swap."""
    check(replica.command("FAILOVER")[1] == b"ERR FAILOVER is not valid when server is a replica.",
          "FAILOVER on a replica: Redis's error")
    check(primary.command("FAILOVER", "FORCE")[1] ==
          b"ERR FAILOVER with force option requires both a timeout and target HOST and IP.",
          "FAILOVER FORCE without a timeout and target: Redis's error")
    check(primary.command("FAILOVER", "ABORT")[1] == b"ERR No failover in progress.",
          "FAILOVER ABORT with none: Redis's error")
    acknowledged = [0]
    done = threading.Event()

    def increments():
        c = Client(primary.port)
        while not done.is_set():
            try:
                if c.command("INCR", "switch-counter")[0] == b":":
                    acknowledged[0] += 1
            except (ConnectionError, OSError):
                return
    writer = threading.Thread(target=increments)
    writer.start()
    time.sleep(0.3)
    check(primary.command("FAILOVER", "TO", "127.0.0.1", replica_port, "TIMEOUT", "5000") == (b"+", b"OK"),
          "FAILOVER TO replica TIMEOUT 5000: OK")
    switched = wait_for("the switch", lambda: info(replica)["role"] == "master" and
                        info(primary).get("master_port") == str(replica_port), 15)
    time.sleep(0.3)
    done.set()
    writer.join()
    check(switched, "the roles swap")
    got = int(replica.command("GET", "switch-counter")[1])
    check(got == acknowledged[0] > 0, f"every acknowledged INCR is on the new primary ({got} of {acknowledged[0]})")
    check(in_sync(replica, primary), "the old primary follows the new one")
    check(info(primary)["master_failover_state"] == "no-failover", "INFO: no failover in progress after it")


def main():
    server_bin = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="teksdb-replication-")
    # The primary keeps its archived WAL 1 s only: a replica stopped for
    # longer falls behind it.
    cluster = Cluster(server_bin, tmp, {"primary": ["--repl-wal-retention-s", "1",
                                                         "--repl-wal-retention-mb", "0"]})
    try:
        primary, replica = sync_and_stream(cluster)
        primary, replica = restarts(cluster, primary)
        replica = behind_the_retention(cluster, primary, replica)
        survivor = failover_by_hand(cluster, primary, replica)
        old_primary = Server(cluster.ports["primary"])
        bad_input(cluster, old_primary)
        min_replicas_and_wait(survivor)
        old_primary.command("REPLICAOF", "127.0.0.1", cluster.ports["replica"])
        check(in_sync(survivor, old_primary), "a replica again, in sync")
        planned_failover(cluster, survivor, old_primary, cluster.ports["primary"])
    finally:
        cluster.stop_all()
    return checks.finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
