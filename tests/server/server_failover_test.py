#!/usr/bin/env python3
"""Failover of teksdb-servers by Redis Sentinel (Debian's redis-server
--sentinel), on the loopback: a primary, two replicas and three Sentinels
(quorum 2, down-after 1000 ms). A writer sends SET after SET to whichever
server the Sentinels name as the primary, each followed by WAIT 1 1000: a
write is acknowledged when WAIT answers 1 or more. Rounds:
  - SIGKILL of the primary (several times): the Sentinels promote a
    replica; the killed server restarts on its own directory, and the
    Sentinels make it a replica of the new primary, where it catches up;
  - SIGSTOP of the primary for a while (a hang, not a crash), then
    SIGCONT: the same, with the old primary alive all along;
  - SIGSTOP of a replica (its link cut) while writes go on.
At the end every acknowledged write is on the primary, and all three
servers hold the same data. Prints the failover times (kill to the first
acknowledged write on the new primary).

Under ACL, as an operator locks such a setup down: the default user (the
writer's and the test's) may not replicate or reconfigure a server; the
replicas log in to their primary as a replication user that may only
PING, REPLCONF and PSYNC (masteruser, masterauth), and the Sentinels as a
user with only what Sentinel needs (auth-user, auth-pass; the list Redis's
documentation gives). A server or Sentinel that logged in as anyone else
could not replicate or fail over.

Usage: server_failover_test.py PATH/TO/teksdb-server [ROUNDS]
"""

import os
import signal
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from server_checks import Checks, sentinels_know_all, start_sentinels, stop, wait_for  # noqa: E402
from resp_client import Client, free_port  # noqa: E402

checks = Checks("server_failover")
check = checks.check
NAME = "teks"


def query(port, *args, timeout=2):
    """One command on a fresh connection, or None if the server is away."""
    try:
        c = Client(port, connect_timeout=timeout)
        c.sock.settimeout(timeout)
        return c.command(*args)
    except (ConnectionError, OSError):
        return None


# The users every server has (see above).
USERS = [
    "default on nopass ~* &* +@all -slaveof -replicaof -failover -psync -sync -replconf -config -client",
    "replicator on >replpw +ping +replconf +psync",
    "sentinel-user on >sentpw allchannels +multi +slaveof +ping +exec +subscribe +config|rewrite "
    "+role +publish +info +client|setname +client|kill +script|kill",
]
SERVER_FLAGS = [flag for user in USERS for flag in ("--user", user)] + [
    "--masteruser", "replicator", "--masterauth", "replpw"]


class Sentinels:
    def __init__(self, tmp, primary_port):
        self.ports, self.procs = start_sentinels(tmp, NAME, primary_port, auth=("sentinel-user", "sentpw"))
        checks.logs.extend(os.path.join(tmp, f"sentinel{i}.log") for i in range(len(self.ports)))

    def primary(self):
        """The primary's port as the Sentinels' majority names it, or None."""
        named = []
        for port in self.ports:
            got = query(port, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", NAME)
            if got and got[0] == b"*" and got[1]:
                named.append(int(got[1][1][1]))
        best = max(set(named), key=named.count, default=None)
        return best if named.count(best) >= 2 else None


class Writer(threading.Thread):
    """SET w<n> n, then WAIT 1 1000, to the primary the Sentinels name."""

    def __init__(self, sentinels):
        super().__init__()
        self.sentinels, self.acknowledged, self.stop_flag = sentinels, [], threading.Event()
        self.ack_times, self.lock, self.n = [], threading.Lock(), 0

    def run(self):
        client, port = None, None
        while not self.stop_flag.is_set():
            try:
                named = self.sentinels.primary()
                if named is None:
                    time.sleep(0.05)
                    continue
                if named != port or client is None:
                    client, port = Client(named, connect_timeout=1), named
                    client.sock.settimeout(3)
                self.n += 1
                key = f"w{self.n}"
                reply = client.pipeline([["SET", key, str(self.n)], ["WAIT", "1", "1000"]])
                if reply[0] == (b"+", b"OK") and reply[1][0] == b":" and int(reply[1][1]) >= 1:
                    with self.lock:
                        self.acknowledged.append(key)
                        self.ack_times.append((time.time(), port))
            except (ConnectionError, OSError):
                client = None
                time.sleep(0.05)

    def first_ack_after(self, t, port=None):
        with self.lock:
            for when, on in self.ack_times:
                if when > t and (port is None or on != port):
                    return when
        return None


def snapshot(port):
    c = Client(port)
    keys = sorted(x[1] for x in c.command("KEYS", "*")[1])
    return {k: c.command("GET", k)[1] for k in keys}


def info(port):
    got = query(port, "INFO", "replication")
    if got is None or got[0] != b"$":
        return {}
    return dict(line.split(":", 1) for line in got[1].decode().splitlines() if ":" in line)


def all_in_sync(ports, primary):
    """Every other server a replica of `primary`, link up, at its offset."""
    want = info(primary).get("master_repl_offset")
    return want is not None and all(
        info(p).get("master_port") == str(primary) and info(p).get("master_link_status") == "up" and
        info(p).get("slave_repl_offset") == want for p in ports if p != primary)


def main():
    server_bin = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    tmp = tempfile.mkdtemp(prefix="teksdb-failover-")
    ports = [free_port() for _ in range(3)]
    procs = {}

    def start(i):
        port, proc = checks.start_server(server_bin, os.path.join(tmp, f"server{i}"), *SERVER_FLAGS,
                                         *(["--replicaof", f"127.0.0.1 {ports[0]}"] if i and not
                                           os.path.exists(os.path.join(tmp, f"server{i}")) else []),
                                         port=ports[i])
        procs[ports[i]] = proc

    sentinels = None
    writer = None
    try:
        for i in range(3):
            start(i)
        check(wait_for(lambda: all_in_sync(ports, ports[0]), 30), "two replicas in sync with the primary")
        refused = query(ports[0], "REPLCONF", "listening-port", "1")
        check(refused and refused[0] == b"-" and refused[1].startswith(b"NOPERM"),
              f"the default user may not replicate ({refused})")
        sentinels = Sentinels(tmp, ports[0])
        check(wait_for(lambda: sentinels.primary() == ports[0], 30), "the Sentinels agree on the primary")
        check(wait_for(lambda: sentinels_know_all(sentinels.ports, NAME, 2), 30),
              "the Sentinels know the replicas and each other")
        writer = Writer(sentinels)
        writer.start()
        check(wait_for(lambda: len(writer.acknowledged) > 20, 30), "writes acknowledged by WAIT 1")
        failover_times = []
        started = time.time()
        for round_number in range(rounds + 1):
            primary = sentinels.primary()
            hang = round_number == rounds  # the last round: a hang, not a crash
            killed_at = time.time()
            if hang:
                procs[primary].send_signal(signal.SIGSTOP)
            else:
                stop([procs.pop(primary)])
            moved = wait_for(lambda: sentinels.primary() not in (None, primary), 60)
            new_primary = sentinels.primary()
            check(moved, f"round {round_number}: the Sentinels promote a replica "
                         f"({'SIGSTOP' if hang else 'SIGKILL'} of {primary} -> {new_primary})")
            acked = wait_for(lambda: writer.first_ack_after(killed_at, primary) is not None, 60)
            if acked:
                failover_times.append(writer.first_ack_after(killed_at, primary) - killed_at)
            check(acked, f"round {round_number}: writes acknowledged again on the new primary")
            if hang:
                time.sleep(2)
                procs[primary].send_signal(signal.SIGCONT)
            else:
                start(ports.index(primary))
            check(wait_for(lambda: all_in_sync(ports, sentinels.primary()), 90),
                  f"round {round_number}: the old primary rejoins as a replica, all in sync "
                  f"({len(writer.acknowledged)} writes acknowledged so far, {time.time() - started:.0f} s)")
        # A replica's link cut (SIGSTOP) while writes go on, then back.
        primary = sentinels.primary()
        replica = next(p for p in ports if p != primary)
        procs[replica].send_signal(signal.SIGSTOP)
        before = len(writer.acknowledged)
        check(wait_for(lambda: len(writer.acknowledged) > before + 20, 30),
              "with one replica stopped, writes go on (WAIT 1: the other acknowledges)")
        procs[replica].send_signal(signal.SIGCONT)
        check(wait_for(lambda: all_in_sync(ports, sentinels.primary()), 60),
              "the stopped replica catches up")
        writer.stop_flag.set()
        writer.join()
        primary = sentinels.primary()
        check(wait_for(lambda: all_in_sync(ports, primary), 60), "at the end: all in sync")
        data = snapshot(primary)
        lost = [k for k in writer.acknowledged if data.get(k.encode()) != k[1:].encode()]
        check(len(writer.acknowledged) > 100 and not lost,
              f"{len(writer.acknowledged)} writes acknowledged by WAIT 1 of {writer.n} sent, "
              f"{len(lost)} lost ({lost[:5]})")
        same = [snapshot(p) == data for p in ports]
        check(all(same), f"all three servers hold the same data ({len(data)} keys; {same})")
        denied = [entry for p in ports for entry in (query(p, "ACL", "LOG") or (None, []))[1]]
        check(not denied, f"the Sentinels and the replicas were never denied a command ({denied[:2]})")
        if failover_times:
            ordered = sorted(failover_times)
            print(f"failover times (kill to the first acknowledged write on the new primary), "
                  f"{len(ordered)} rounds: min {ordered[0]:.2f} s, median {ordered[len(ordered) // 2]:.2f} s, "
                  f"max {ordered[-1]:.2f} s")
    finally:
        if writer is not None:
            writer.stop_flag.set()
            writer.join()
        for proc in procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
        stop(list(procs.values()) + (sentinels.procs if sentinels else []))
    return checks.finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
