"""What the teksdb-server client tests share: named checks that go on after
a failure, the servers they start (teksdb-server, and redis-server to
compare with, Redis Sentinels) with the logs to show when a check failed, a
whole run over one server, and the closing line.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

from resp_client import Client, free_port

# What teksdb-server runs of Redis 7.2 and 7.4 that Redis 7.0 (the servers
# compared with) lacks: commands and subcommands, as COMMAND LIST names
# them; left out where a reply lists commands by category or pattern.
NOT_IN_REDIS_70 = {"waitaof", "client|setinfo", "client|no-touch", "hexpire", "hpexpire",
                   "hexpireat", "hpexpireat", "httl", "hpttl", "hexpiretime", "hpexpiretime",
                   "hpersist"}


def start_server(server_bin, directory, *flags, threads=2, port=None):
    """Starts teksdb-server on `directory`, its stdout and stderr (a
    sanitizer's report too) appended to directory + ".log", and waits until
    it answers; returns (port, process, log path)."""
    port = port or free_port()
    log = directory + ".log"
    with open(log, "a") as out:
        proc = subprocess.Popen([server_bin, "--dir", directory, "--port", str(port),
                                 "--threads", str(threads), *flags], stdout=out, stderr=out)
    # (A replica started with --replicaof may close its first connections
    # once, to swap in its first full sync: PING again until it answers.)
    deadline = time.time() + 20
    while True:
        try:
            Client(port).command("PING")
            break
        except (ConnectionError, OSError):
            if time.time() > deadline:
                raise
            time.sleep(0.1)
    return port, proc, log


def rss_kb(pid):
    """The resident memory of process `pid`, in KiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def start_redis(directory, *flags):
    """Starts a real redis-server (no persistence) in `directory`; returns
    (port, process)."""
    port = free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", directory, *flags],
                            stdout=subprocess.DEVNULL)
    return port, proc


def start_sentinels(directory, name, primary_port, n=3, quorum=2, auth=None):
    """Starts n Redis Sentinels (redis-server --sentinel) watching the
    primary at primary_port as `name` (down-after 1000 ms, failover-timeout
    10 s), each logging to directory/sentinelI.log; `auth`: (user,
    password) they log in to the servers with (auth-user, auth-pass).
    Returns (ports, processes)."""
    ports, procs = [], []
    for i in range(n):
        port = free_port()
        conf = os.path.join(directory, f"sentinel{i}-{primary_port}.conf")
        with open(conf, "w") as f:
            f.write(f"port {port}\nbind 127.0.0.1\ndir {directory}\n"
                    f"logfile {os.path.join(directory, f'sentinel{i}.log')}\n"
                    f"sentinel monitor {name} 127.0.0.1 {primary_port} {quorum}\n"
                    f"sentinel down-after-milliseconds {name} 1000\n"
                    f"sentinel failover-timeout {name} 10000\n")
            if auth:
                f.write(f"sentinel auth-user {name} {auth[0]}\nsentinel auth-pass {name} {auth[1]}\n")
        procs.append(subprocess.Popen(["redis-server", conf, "--sentinel"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        ports.append(port)
    return ports, procs


def sentinels_know_all(ports, name, replicas):
    """Whether each Sentinel at `ports` knows `replicas` replicas of `name`
    and all the other Sentinels (from their hellos, every 2 s): before
    that, a primary that goes may never be failed over (no quorum)."""
    for port in ports:
        for what, count in (("SENTINELS", len(ports) - 1), ("REPLICAS", replicas)):
            try:
                c = Client(port, connect_timeout=2)
                c.sock.settimeout(2)
                got = c.command("SENTINEL", what, name)
                c.sock.close()
            except OSError:
                return False
            if got[0] != b"*" or len(got[1] or []) < count:
                return False
    return True


def wait_for(predicate, seconds, interval=0.05):
    """Whether `predicate()` came true within `seconds`, asked every
    `interval` seconds."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return False


def stop(procs):
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


class Checks:
    def __init__(self, name):
        self.name = name
        self.failures = []
        self.logs = []  # server logs (stderr, a sanitizer's report too)

    def check(self, ok, what):
        print(("ok: " if ok else "FAIL: ") + what)
        if not ok:
            self.failures.append(what)

    def start_server(self, server_bin, directory, *flags, threads=2, port=None):
        """start_server, its log shown if a check fails; returns (port,
        process)."""
        port, proc, log = start_server(server_bin, directory, *flags, threads=threads, port=port)
        if log not in self.logs:
            self.logs.append(log)
        return port, proc

    def run_parts(self, prefix, parts):
        """A whole test: one teksdb-server (sys.argv[1], two I/O threads, a
        new directory named from `prefix`) for `parts`, each called with
        its port, in order; returns the exit code."""
        tmp = tempfile.mkdtemp(prefix=prefix)
        port, proc = self.start_server(sys.argv[1], os.path.join(tmp, "db"))
        try:
            for part in parts:
                part(port)
        finally:
            stop([proc])
        return self.finish(tmp)

    def finish(self, tmp):
        """Prints the logs if anything failed, removes `tmp`, prints the
        summary line and returns the exit code."""
        if self.failures:
            for name in self.logs:
                if not os.path.exists(name):
                    continue
                with open(name, errors="replace") as f:
                    print(f"--- {name}:\n" + f.read()[-4000:])
        shutil.rmtree(tmp, ignore_errors=True)
        print(f"{self.name}: {len(self.failures)} failure(s)")
        return 1 if self.failures else 0
