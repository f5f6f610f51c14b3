#!/usr/bin/env python3
"""Replication benchmarks (docs/REPLICATION.md), each measured in one run
beside its baseline, medians over --repeat runs:

  writes    pipelined SET (redis-benchmark -P 16 -c 8, --value-size bytes)
            against a teksdb-server primary with 0, 1 and 2 replicas: its
            ops/s and the primary's own CPU per request (/proc/PID/stat,
            every thread). The primary runs on CPU 0, redis-benchmark and
            the replicas on CPU 1.
  lag       during the same full-speed writes, a probe SETs a fresh value on
            the primary every 50 ms and times until the replica returns it
            (ms), and the replica's offset behind the primary's (sequences),
            sampled each probe.
  fullsync  a replica added to a primary holding --sync-mb MiB, while a
            writer runs: the sync's MiB/s (files received / time to the
            swap) and the writer's ops/s before and during it.
  failover  a primary, two replicas, three Sentinels (down-after 1000 ms):
            SIGKILL of the primary to the first write acknowledged by the
            new primary; the same with redis-server (appendonly yes,
            appendfsync everysec) under the same Sentinel settings.

Prints a table per benchmark and writes them to --out (table.txt, runs.tsv).

Usage: scripts/bench_replication.py [--server PATH] [--repeat 3]
         [--requests 1000000] [--value-size 100] [--sync-mb 1024]
         [--only writes,lag,fullsync,failover] [--out docs/bench/replication]
"""

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
from text_table import print_table  # noqa: E402
from resp_client import Client, free_port  # noqa: E402
from server_checks import start_sentinels  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def log(*what):
    print("[bench_replication]", *what, file=sys.stderr, flush=True)


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def info(port, section="replication"):
    text = Client(port).command("INFO", section)[1].decode()
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def wait_for(predicate, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if predicate():
                return True
        except (ConnectionError, OSError):
            pass
        time.sleep(0.05)
    return False


class Servers:
    """teksdb-servers (and Sentinels, redis-servers) of one run."""

    def __init__(self, server_bin, tmp):
        self.server_bin, self.tmp, self.procs = server_bin, tmp, []

    def teks(self, name, cpu, *flags):
        port = free_port()
        log_file = open(os.path.join(self.tmp, name + ".log"), "a")
        proc = subprocess.Popen(["taskset", "-c", str(cpu), self.server_bin, "--dir",
                                 os.path.join(self.tmp, name), "--port", str(port), "--threads", "1",
                                 *flags], stdout=log_file, stderr=log_file)
        self.procs.append(proc)
        Client(port).command("PING")
        return port, proc

    def redis(self, name, cpu, *flags):
        port = free_port()
        directory = os.path.join(self.tmp, name)
        os.makedirs(directory, exist_ok=True)
        proc = subprocess.Popen(["taskset", "-c", str(cpu), "redis-server", "--port", str(port),
                                 "--bind", "127.0.0.1", "--dir", directory, "--save", "", *flags],
                                stdout=subprocess.DEVNULL)
        self.procs.append(proc)
        Client(port).command("PING")
        return port, proc

    def sentinels(self, primary_port):
        ports, procs = start_sentinels(self.tmp, "m", primary_port)
        self.procs.extend(procs)
        return ports

    def stop(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        self.procs = []


def in_sync(primary, replica):
    return (info(replica).get("master_link_status") == "up" and
            info(replica)["slave_repl_offset"] == info(primary)["master_repl_offset"])


def redis_benchmark(port, requests, value_size, keyspace=1000000):
    out = subprocess.run(["taskset", "-c", "1", "redis-benchmark", "-p", str(port), "-t", "set", "-n",
                          str(requests), "-P", "16", "-c", "8", "-d", str(value_size), "-r", str(keyspace),
                          "-q", "--csv"], capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1].split(",")[1].strip('"'))


def bench_writes(args, tmp, results):
    for replicas in (0, 1, 2):
        servers = Servers(args.server, os.path.join(tmp, f"writes{replicas}-{time.time()}"))
        os.makedirs(servers.tmp)
        try:
            port, proc = servers.teks("primary", 0)
            replica_ports = [servers.teks(f"replica{i}", 1, "--replicaof", f"127.0.0.1 {port}")[0]
                             for i in range(replicas)]
            for r in replica_ports:
                wait_for(lambda: in_sync(port, r), 60)
            cpu = cpu_seconds(proc.pid)
            lag = Lag(port, replica_ports[0]) if replica_ports else None
            ops = redis_benchmark(port, args.requests, args.value_size)
            cpu_us = (cpu_seconds(proc.pid) - cpu) * 1e6 / args.requests
            if lag:
                lag.stop()
                results["lag"].append({"ms_median": statistics.median(lag.ms) if lag.ms else None,
                                       "ms_max": max(lag.ms) if lag.ms else None,
                                       "seq_median": statistics.median(lag.behind) if lag.behind else None,
                                       "seq_max": max(lag.behind) if lag.behind else None,
                                       "replicas": replicas})
            results["writes"].append({"replicas": replicas, "ops": ops, "cpu_us": cpu_us})
            log(f"writes: {replicas} replicas: {ops:.0f} SET/s, primary {cpu_us:.2f} µs CPU per SET")
        finally:
            servers.stop()


class Lag(threading.Thread):
    """Probes the replica's lag behind the primary while writes run."""

    def __init__(self, primary, replica):
        super().__init__()
        self.primary, self.replica, self.ms, self.behind = primary, replica, [], []
        self.done = threading.Event()
        self.start()

    def run(self):
        p, r, n = Client(self.primary), Client(self.replica), 0
        while not self.done.is_set():
            n += 1
            value = f"{n}-{time.time()}"
            p.command("SET", "lag-probe", value)
            started = time.time()
            while r.command("GET", "lag-probe")[1] != value.encode() and time.time() - started < 10:
                time.sleep(0.0005)
            self.ms.append((time.time() - started) * 1000)
            primary_offset = int(info(self.primary)["master_repl_offset"])
            replica_offset = int(info(self.replica)["slave_repl_offset"])
            self.behind.append(max(0, primary_offset - replica_offset))
            time.sleep(0.05)

    def stop(self):
        self.done.set()
        self.join()


def load(port, mib, value=1000):
    """`mib` MiB of random (incompressible) 1000-byte values, in pipelines."""
    keys = mib * 1024 * 1024 // value
    log(f"fullsync: loading {mib} MiB ({keys} keys of {value} random bytes)")
    c = Client(port)
    batch = 200
    for start in range(0, keys, batch):
        c.sock.sendall(b"".join(Client.encode(["SET", f"load:{i}", os.urandom(value)])
                                for i in range(start, min(keys, start + batch))))
        for _ in range(start, min(keys, start + batch)):
            c.reply()
        if (start // batch) % max(1, keys // batch // 10) == 0:
            log(f"fullsync: loaded {start * value >> 20} MiB")


def bench_fullsync(args, tmp, results):
    servers = Servers(args.server, os.path.join(tmp, f"fullsync-{time.time()}"))
    os.makedirs(servers.tmp)
    try:
        port, proc = servers.teks("primary", 0)
        load(port, args.sync_mb)
        Client(port).command("SAVE")
        before = redis_benchmark(port, 200000, args.value_size)
        ops = []
        stop_writer = threading.Event()

        def writer():
            while not stop_writer.is_set():
                ops.append((time.time(), redis_benchmark(port, 100000, args.value_size)))
        w = threading.Thread(target=writer)
        w.start()
        started = time.time()
        replica_port, _ = servers.teks("replica", 1, "--replicaof", f"127.0.0.1 {port}")
        log_path = os.path.join(servers.tmp, "replica.log")
        wait_for(lambda: "swapped in" in open(log_path).read(), 3600)
        swapped = time.time() - started
        stop_writer.set()
        w.join()
        copied = sum(os.path.getsize(os.path.join(servers.tmp, "replica", f))
                     for f in os.listdir(os.path.join(servers.tmp, "replica"))
                     if os.path.isfile(os.path.join(servers.tmp, "replica", f)))
        during = [o for t, o in ops if t <= started + swapped] or [o for _, o in ops]
        results["fullsync"].append({"mib": copied / 2**20, "seconds": swapped,
                                    "mib_per_s": copied / 2**20 / swapped, "ops_before": before,
                                    "ops_during_min": min(during), "ops_during_median": statistics.median(during)})
        log(f"fullsync: {copied / 2**20:.0f} MiB in {swapped:.1f} s; writes {before:.0f}/s before, "
            f"{min(during):.0f}/s at the least during")
    finally:
        servers.stop()


def failover_once(servers, primary, replicas, sentinel_ports, kill):
    """Kills the primary; seconds to the first SET the new one acknowledges."""
    time.sleep(12)  # the Sentinels find the replicas and each other
    killed = time.time()
    kill()
    while time.time() - killed < 120:
        for port in replicas:
            try:
                c = Client(port, connect_timeout=0.2)
                c.sock.settimeout(0.5)
                if c.command("SET", "after-failover", "1") == (b"+", b"OK"):
                    return time.time() - killed
            except (ConnectionError, OSError):
                pass
        time.sleep(0.02)
    return None


def bench_failover(args, tmp, results):
    for server in ("teksdb-server", "redis-server"):
        servers = Servers(args.server, os.path.join(tmp, f"failover-{server}-{time.time()}"))
        os.makedirs(servers.tmp)
        try:
            if server == "teksdb-server":
                port, proc = servers.teks("primary", 0)
                replicas = [servers.teks(f"replica{i}", 1, "--replicaof", f"127.0.0.1 {port}")[0] for i in range(2)]
            else:
                aof = ("--appendonly", "yes", "--appendfsync", "everysec")
                port, proc = servers.redis("primary", 0, *aof)
                replicas = [servers.redis(f"replica{i}", 1, *aof, "--replicaof", "127.0.0.1", str(port))[0]
                            for i in range(2)]
            for r in replicas:
                wait_for(lambda: info(r).get("master_link_status") == "up", 60)
            sentinel_ports = servers.sentinels(port)
            seconds = failover_once(servers, port, replicas, sentinel_ports, lambda: os.kill(proc.pid, signal.SIGKILL))
            results["failover"].append({"server": server, "seconds": seconds})
            log(f"failover: {server}: {seconds:.2f} s" if seconds else f"failover: {server}: none in 120 s")
        finally:
            servers.stop()


def median_of(rows, key, field):
    groups = {}
    for row in rows:
        groups.setdefault(row[key], []).append(row[field])
    return {k: statistics.median([v for v in vs if v is not None]) if any(v is not None for v in vs) else None
            for k, vs in groups.items()}


def report(results, out):
    lines = []

    def table(title, header, rows):
        print(f"\n{title}")
        print_table(header, rows, 1, 0)
        lines.append((title, header, rows))

    if results["writes"]:
        ops = median_of(results["writes"], "replicas", "ops")
        cpu = median_of(results["writes"], "replicas", "cpu_us")
        table("Pipelined SET on the primary (redis-benchmark -P 16 -c 8), medians",
              ["replicas", "SET/s", "vs 0", "primary CPU µs/SET", "vs 0"],
              [[n, f"{ops[n]:.0f}", f"{ops[n] / ops[0]:.2f}x", f"{cpu[n]:.2f}", f"{cpu[n] / cpu[0]:.2f}x"]
               for n in sorted(ops)])
    if results["lag"]:
        rows = []
        for n in sorted({r["replicas"] for r in results["lag"]}):
            runs = [r for r in results["lag"] if r["replicas"] == n]
            rows.append([n, f"{statistics.median(r['ms_median'] for r in runs):.1f}",
                         f"{max(r['ms_max'] for r in runs):.1f}",
                         f"{statistics.median(r['seq_median'] for r in runs):.0f}",
                         f"{max(r['seq_max'] for r in runs):.0f}"])
        table("Replica lag at full write speed (probe every 50 ms)",
              ["replicas", "ms median", "ms max", "sequences behind median", "max"], rows)
    if results["fullsync"]:
        table("Full sync while a writer runs",
              ["MiB", "seconds", "MiB/s", "SET/s before", "SET/s during, min", "median"],
              [[f"{r['mib']:.0f}", f"{r['seconds']:.1f}", f"{r['mib_per_s']:.0f}", f"{r['ops_before']:.0f}",
                f"{r['ops_during_min']:.0f}", f"{r['ops_during_median']:.0f}"] for r in results["fullsync"]])
    if results["failover"]:
        seconds = median_of(results["failover"], "server", "seconds")
        table("Failover by Sentinel (down-after 1000 ms): SIGKILL to the first acknowledged SET, medians",
              ["server", "seconds"], [[s, "-" if v is None else f"{v:.2f}"] for s, v in seconds.items()])
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "runs.tsv"), "w") as f:
        for name, rows in results.items():
            for row in rows:
                f.write(name + "\t" + "\t".join(f"{k}={v}" for k, v in row.items()) + "\n")
    with open(os.path.join(out, "table.txt"), "w") as f:
        for title, header, rows in lines:
            f.write(title + "\n" + "\t".join(header) + "\n" + "\n".join("\t".join(map(str, r)) for r in rows) + "\n\n")
    print(f"\n(written to {out}/table.txt and runs.tsv)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default=os.environ.get("TEKSDB_SERVER",
                                                           os.path.join(ROOT, "build", "server", "teksdb-server")))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--requests", type=int, default=1000000)
    parser.add_argument("--value-size", type=int, default=100)
    parser.add_argument("--sync-mb", type=int, default=1024)
    parser.add_argument("--only", default="writes,lag,fullsync,failover")
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "bench", "replication"))
    args = parser.parse_args()
    for tool in ("taskset", "redis-benchmark", "redis-server"):
        if shutil.which(tool) is None:
            sys.exit(f"bench_replication: {tool} not found (scripts/setup.sh installs it)")
    if not os.access(args.server, os.X_OK):
        sys.exit(f"bench_replication: no teksdb-server at {args.server} (build it, or --server PATH)")
    only = set(args.only.split(","))
    unknown = only - {"writes", "lag", "fullsync", "failover"}
    if unknown:
        sys.exit(f"bench_replication: unknown benchmark(s) {','.join(sorted(unknown))}")
    results = {"writes": [], "lag": [], "fullsync": [], "failover": []}
    tmp = tempfile.mkdtemp(prefix="teksdb-bench-replication-")
    try:
        for run in range(args.repeat):
            log(f"run {run + 1} of {args.repeat}")
            if only & {"writes", "lag"}:
                bench_writes(args, tmp, results)
            if "failover" in only:
                bench_failover(args, tmp, results)
        if "fullsync" in only:
            bench_fullsync(args, tmp, results)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report(results, args.out)


if __name__ == "__main__":
    main()
