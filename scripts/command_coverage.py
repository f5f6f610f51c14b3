#!/usr/bin/env python3
"""Writes docs/COMMANDS.md: every command of Redis 7.0 (Debian's
redis-server, asked with COMMAND DOCS for its group), whether Apache Kvrocks
registers it (docs/kvrocks_commands.txt, taken from Kvrocks's sources) and
whether teksdb-server runs it (asked with COMMAND LIST; every other name it
refuses with Redis's "unknown command" error), and the pass counts of
Redis's own test suite per file (scripts/redis_suite.sh). With --check, compares
instead of writing, and fails if the file is out of date or teksdb-server
runs a command Redis 7.0 does not have (but those of Redis 7.2 and 7.4 in
LATER, which the file lists apart).

Usage: scripts/command_coverage.py [--check] PATH/TO/teksdb-server
"""

import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
from resp_client import Client  # noqa: E402
from server_checks import start_redis, start_server, stop  # noqa: E402

DOC = os.path.join(ROOT, "docs", "COMMANDS.md")
KVROCKS = os.path.join(ROOT, "docs", "kvrocks_commands.txt")
SUITE = os.path.join(ROOT, "tests", "tools")  # scripts/redis_suite.sh --record's files


def deliberately_other():
    """The files scripts/redis_suite.sh names as testing what teksdb-server
    deliberately does otherwise (cluster mode, Redis's replication stream,
    AOF and RDB files, its crash log)."""
    with open(os.path.join(ROOT, "scripts", "redis_suite.sh")) as f:
        return set(f.read().split('deliberately_other="', 1)[1].split('"', 1)[0].split())


def suite_counts(suffix, base_list=None):
    """The table of one release's files: passes per file, both servers, and
    the failures listed (scripts/redis_suite.sh's lists, `suffix` naming
    the release's: "" for 7.0.15, "_7.4.1", "_slow" for 7.0.15's with the
    slow tests, whose list of failures adds to the list `base_list` names)."""
    def passes(name):
        with open(os.path.join(SUITE, name)) as f:
            return dict(l.split("\t")[:2] for l in f.read().splitlines() if l and not l.startswith("#"))
    redis = passes(f"redis_suite_redis_passes{suffix}.txt")
    teks = passes(f"redis_suite_teksdb_passes{suffix}.txt")
    expected = []
    for list_suffix in ([] if base_list is None else [base_list]) + [suffix]:
        with open(os.path.join(SUITE, f"redis_suite_expected_failures{list_suffix}.txt")) as f:
            expected += [l.split("\t")[0] for l in f.read().splitlines() if l and not l.startswith("#")]
    lines = ["| file | redis-server passes | teksdb-server passes | share | listed failures |",
             "|---|---:|---:|---:|---:|"]
    total_r = total_t = 0
    for name in sorted(redis):
        r, t = int(redis[name]), int(teks.get(name, 0))
        total_r += r
        total_t += min(t, r)  # (a file whose tests loop for a time may run more of them)
        share = f"{100 * t // r}%" if r else "-"  # (a file whose tests are all slow: none run)
        lines.append(f"| {name} | {r} | {t} | {share} | {expected.count(name)} |")
    listed = sum(expected.count(name) for name in redis)
    lines.append(f"| **all** | **{total_r}** | **{total_t}** | "
                 f"**{100 * total_t // total_r if total_r else 0}%** | **{listed}** |")
    other = deliberately_other() & set(redis)
    if other:
        r = total_r - sum(int(redis[name]) for name in other)
        t = total_t - sum(min(int(teks.get(name, 0)), int(redis[name])) for name in other)
        n = listed - sum(expected.count(name) for name in other)
        lines.append(f"| **all but the {len(other)} files of what teksdb-server deliberately does "
                     f"otherwise** | **{r}** | **{t}** | **{100 * t // r if r else 0}%** | **{n}** |")
    return lines


def suite_table():
    """The sections on Redis's own test suites, from what scripts/redis_suite.sh
    --record (and --redis --record) wrote."""
    lines = ["", "## Redis 7.0.15's own test suite", "",
             "`scripts/redis_suite.sh` runs every file the suite's own `runtest` runs",
             "(test_helper.tcl's `all_tests`: all of tests/unit, tests/unit/type and",
             "tests/integration, the cluster files among them) against teksdb-server, each",
             "file against servers of its own (`--threads 1`: the suite reads commands sent on two",
             "connections as run in the order sent, which Redis's one event loop does and",
             "concurrent I/O threads do not promise; `set-max-listpack-entries 0`: Redis",
             "7.0 keeps no set of strings compact, a listpack set is Redis 7.2's), the",
             "harness as it is",
             "(`--tags -slow`), twice the CPUs' files at a time. Most files run in the harness's",
             "external-server mode; those whose tests Redis tags `external:skip`",
             "(unit/obuf-limits, limits, querybuf, auth, networking, info, acl, acl-v2,",
             "pubsubshard, wait, integration/redis-benchmark, corrupt-dump,",
             "corrupt-dump-fuzzer and the longer job's) run in its own mode: the harness",
             "starts each server itself on a redis.conf it writes, through a wrapper",
             "standing in for `src/redis-server` that runs teksdb-server on that file",
             "(redis-cli and redis-benchmark: Debian's).",
             "CI runs it (ctest `redis_suite`, about 2.5 minutes here) and fails on any test",
             "not listed, with its reason, in",
             "`tests/tools/redis_suite_expected_failures.txt`; the few tests that could only",
             "wait for ever here, or whose error would end their file, are skipped by name, each with its reason, in",
             "`tests/tools/redis_suite_skipped_tests.txt` (counted as not passed).",
             "The longer job, `scripts/redis_suite.sh --long`, adds unit/maxmemory,",
             "memefficiency, client-eviction, oom-score-adj, shutdown, aofrw and",
             "pendingquerybuf, and the files of what teksdb-server deliberately does",
             "otherwise: cluster mode (unit/cluster, cluster-scripting, cluster/misc,",
             "cluster/links), Redis's replication stream and replicas (integration/replication*,",
             "psync2*, block-repl, failover, shutdown), AOF and RDB files on disk",
             "(integration/aof*, rdb, convert-*-on-load), its crash log and fork",
             "(logging, dismiss-mem); each failure's reason is listed.",
             "Not run: tests/unit/moduleapi, which `runtest-moduleapi` runs with Redis's test",
             "modules built from its sources (teksdb-server loads no module: MODULE LOAD is",
             "refused), and TLS (unit/tls runs nothing without `--tls`; teksdb-server has",
             "no TLS listener).",
             "redis-server: Debian's 7.0, run the same way (`--redis`). Counts as of the",
             "last `--record`. Beside the 26 files of what teksdb-server does otherwise,",
             "most of what the other files' failures need is also what it does otherwise,",
             "each named in its reason: Redis's replication stream (MULTI's and",
             "scripts' propagation, a replica's protocol), eviction under maxmemory",
             "policies other than noeviction, AOF and RDB files, Redis's own",
             "assertion on a damaged payload RESTORE here refuses, used_memory as the",
             "allocator's count, key access times (OBJECT IDLETIME: 9% of a GET).",
             "The longer job's files of what it does otherwise take about 4 minutes more here.", ""]
    lines += suite_counts("")
    lines += ["", "### With the tests Redis tags slow", "",
              "`scripts/redis_suite.sh --slow --long` runs the same files and the longer",
              "job's with the `slow`-tagged tests too (no `--tags -slow`), and",
              "unit/type/list-2, whose tests are all slow (about 4 minutes here; not in",
              "CI: the longer job's). The failures they add, each with its reason, are",
              "in `tests/tools/redis_suite_expected_failures_slow.txt`; the counts (the files",
              "of what teksdb-server does otherwise, whose slow tests redis-server takes",
              "long to pass, in the table above only):", ""]
    lines += suite_counts("_slow", base_list="")
    lines += ["", "## Redis 7.4.1's files, for what Redis 7.2 and 7.4 added", "",
              "`scripts/redis_suite.sh --version 7.4.1` runs Redis 7.4.1's files that test",
              "what teksdb-server has of 7.2 and 7.4 (ZRANK WITHSCORE, CLIENT SETINFO and",
              "NO-TOUCH, WAITAOF, hash field expiration in the harness's own mode) the same",
              "way, against `tests/tools/redis_suite_*_7.4.1.txt` (CI: ctest",
              "`redis_suite_7.4.1`, about 30 seconds). Of the 112 tests of hash-field-expire",
              "redis-server passes, 12 read Redis's AOF or replication stream or need a",
              "replica whose full sync keeps its clients (skipped or listed, as in unit/wait);",
              "of the other 100 teksdb-server passes 99 (INFO keyspace's subexpiry is not",
              "kept). redis-server: a 7.4.1 built from ../shared/redis outside the",
              "tree (`REDIS_SERVER=PATH/TO/redis-7.4.1/src/redis-server scripts/redis_suite.sh --version 7.4.1 --redis",
              "--record`); CI compares with its recorded counts and builds none.", ""]
    lines += suite_counts("_7.4.1")
    return lines


def redis_groups(client):
    """Redis's commands: name -> group, from COMMAND DOCS."""
    docs = client.command("COMMAND", "DOCS")[1]
    groups = {}
    for i in range(0, len(docs), 2):
        name = docs[i][1].decode()
        fields = docs[i + 1][1]
        info = {fields[j][1].decode(): fields[j + 1][1] for j in range(0, len(fields), 2)}
        group = info.get("group", b"?")
        groups[name] = group.decode() if isinstance(group, bytes) else "?"
    return groups


# Commands Redis 7.2 and 7.4 added, and the release that added each.
LATER = {"waitaof": "7.2", "hexpire": "7.4", "hpexpire": "7.4", "hexpireat": "7.4",
         "hpexpireat": "7.4", "httl": "7.4", "hpttl": "7.4", "hexpiretime": "7.4",
         "hpexpiretime": "7.4", "hpersist": "7.4"}


def render(groups, teks, kvrocks, kvrocks_source):
    names = sorted(groups, key=lambda n: (groups[n], n))
    ours = sum(n in teks for n in names)
    theirs = sum(n in kvrocks for n in names)
    lines = [
        "# Redis 7.0 commands: teksdb-server beside Redis and Apache Kvrocks",
        "",
        "Generated by `scripts/command_coverage.py build/server/teksdb-server` (the test",
        "`command_coverage` fails when it is out of date). Redis 7.0: Debian's",
        "redis-server, COMMAND DOCS. Kvrocks: the names its sources register",
        f"({kvrocks_source}). teksdb-server: COMMAND LIST; every command marked",
        "\"no\" is refused with Redis's own `ERR unknown command` error. The cluster group",
        "answers as a Redis with `cluster-enabled no` does (\"This instance has cluster",
        "support disabled\"): teksdb-server runs no cluster (README: several servers behind",
        "twemproxy).",
        "",
        f"**teksdb-server runs {ours} of Redis 7.0's {len(names)} commands; Kvrocks "
        f"{theirs}.**",
        "",
        "| group | teksdb-server | Kvrocks | Redis 7.0 |",
        "|---|---:|---:|---:|",
    ]
    for group in sorted(set(groups.values())):
        in_group = [n for n in names if groups[n] == group]
        lines.append(f"| {group} | {sum(n in teks for n in in_group)} | "
                     f"{sum(n in kvrocks for n in in_group)} | {len(in_group)} |")
    lines += ["", "| command | group | teksdb-server | Kvrocks |", "|---|---|---|---|"]
    for n in names:
        lines.append(f"| {n.upper()} | {groups[n]} | {'yes' if n in teks else 'no'} | "
                     f"{'yes' if n in kvrocks else 'no'} |")
    later = sorted(n for n in teks if n in LATER)
    lines += ["", "Commands of Redis 7.2 and 7.4 teksdb-server runs besides (as those releases "
              "answer them): " + (", ".join(f"{n.upper()} ({LATER[n]})" for n in later) or "none") + "."]
    return "\n".join(lines + suite_table()) + "\n"


def main():
    args = sys.argv[1:]
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    if len(args) != 1:
        print(__doc__)
        return 2
    if shutil.which("redis-server") is None:
        print("command_coverage: redis-server not found (scripts/setup.sh installs it)")
        return 1
    with open(KVROCKS) as f:
        lines = f.read().splitlines()
    kvrocks_source = next(l for l in lines if l.startswith("# Source: "))[len("# Source: "):]
    kvrocks = {l for l in lines if l and not l.startswith("#")}
    tmp = tempfile.mkdtemp(prefix="teksdb-coverage-")
    procs = []
    try:
        redis_port, redis_proc = start_redis(tmp)
        procs.append(redis_proc)
        teks_port, teks_proc, _ = start_server(args[0], os.path.join(tmp, "teks"))
        procs.append(teks_proc)
        groups = redis_groups(Client(redis_port))
        teks = {x[1].decode() for x in Client(teks_port).command("COMMAND", "LIST")[1]
                if b"|" not in x[1]}
    finally:
        stop(procs)
        shutil.rmtree(tmp, ignore_errors=True)
    extra = sorted(teks - set(groups) - set(LATER))
    if extra:
        print(f"command_coverage: teksdb-server runs commands Redis 7.0 lacks: {extra}")
        return 1
    text = render(groups, teks, kvrocks, kvrocks_source)
    if check:
        with open(DOC) as f:
            current = f.read()
        if current != text:
            print("command_coverage: docs/COMMANDS.md is out of date; run "
                  "scripts/command_coverage.py build/server/teksdb-server")
            return 1
        print(f"command_coverage: docs/COMMANDS.md is current ({len(teks)} commands)")
        return 0
    with open(DOC, "w") as f:
        f.write(text)
    print(f"command_coverage: wrote {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
