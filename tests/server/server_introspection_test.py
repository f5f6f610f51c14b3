#!/usr/bin/env python3
"""teksdb-server's answers about itself, as Redis 7.0's clients and tools
read them:
  - INFO: the default sections, "all", "everything", several named, each
    once; blocked_clients counts a client in BLPOP; errorstats, rejected
    and failed calls count errors by code; CONFIG RESETSTAT clears them
    and the command and connection totals;
    CLIENT UNBLOCK ends a blocked command as a timeout or with an error;
  - CLIENT REPLY OFF / SKIP / ON drop exactly the replies Redis drops,
    while Pub/Sub messages still arrive;
  - SELECT's 16 databases: keys apart, MOVE, SWAPDB (WATCH sees it, a
    client blocked on a key of a swapped database wakes), DBSIZE and INFO
    keyspace per database, all kept across a restart;
  - CONFIG: Redis's parameters all answer; kept ones show what was set,
    immutable ones and bad values get Redis's errors, requirepass acts;
  - MODULE LIST is empty; LOAD and UNLOAD are refused unless
    enable-module-command, then fail as Redis's do for a missing library;
  - LATENCY's monitor: off at threshold 0, then a slow command's event in
    LATEST, HISTORY, GRAPH, DOCTOR, and RESET;
  - DEBUG is refused unless --enable-debug-command, then DIGEST follows
    the data and SET-ACTIVE-EXPIRE keeps expired keys stored, until a read
    meets one and deletes it (lazy expiry, with its "expired" event);
  - MONITOR: the lines a monitor gets for a run of commands (quoting,
    redacted passwords, scripts' own commands as "lua", MULTI/EXEC, a
    blocked command, databases; admin commands and refused ones not
    shown) are Redis's (Debian's redis-server, same run), but for the
    time and the clients' ports; RESET and a closed monitor stop them;
  - maxmemory past the memory used: Redis's noeviction refusals (OOM) of
    writes, of anything queued in MULTI, of EXEC, of scripts by their
    flags and of a flagless script's first write, and CONFIG's memory
    units, reply for reply as redis-server's; so are every container
    command's HELP and COMMAND LIST's filters over subcommands, an EXEC whose
    writes min-replicas-to-write now refuses (EXECABORT), and a replica
    cut from its primary with replica-serve-stale-data no (MASTERDOWN),
    and SAVE or SHUTDOWN inside MULTI; COMMAND GETKEYSANDFLAGS's keys and
    flags (RESP2 and RESP3).

Usage: server_introspection_test.py PATH/TO/teksdb-server
"""

import os
import re
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from server_checks import NOT_IN_REDIS_70, Checks, start_redis, stop  # noqa: E402
from resp_client import Client  # noqa: E402

checks = Checks("server_introspection")
check = checks.check


def info(c, *sections):
    return c.command("INFO", *sections)[1].decode()


def info_sections(port):
    c = Client(port)
    default = info(c)
    check("# Server" in default and "# Keyspace" in default and "# Commandstats" not in default,
          "INFO: the default sections, without commandstats")
    check("rejected_calls" in info(c, "all") and "rejected_calls" in info(c, "everything"),
          "INFO all / everything: commandstats too")
    both = info(c, "cpu", "CPU", "clients")
    check(both.count("# CPU") == 1 and "# Clients" in both and "# Memory" not in both,
          "INFO cpu CPU clients: those two sections, each once")
    for field in ("used_memory:", "used_cpu_user:", "blocked_clients:", "number_of_cached_scripts:",
                  "maxmemory_policy:", "total_error_replies:", "connected_clients:"):
        check(field in info(c, "all"), f"INFO has {field}")
    blocker = Client(port)
    blocker.sock.sendall(blocker.encode(["BLPOP", "nothing-here", "0"]))
    deadline = time.time() + 5
    while "blocked_clients:1" not in info(c, "clients") and time.time() < deadline:
        time.sleep(0.02)
    check("blocked_clients:1" in info(c, "clients"), "INFO: a client in BLPOP is blocked_clients:1")
    c.command("RPUSH", "nothing-here", "x")
    check(blocker.reply() == (b"*", [(b"$", b"nothing-here"), (b"$", b"x")]), "the BLPOP is served")
    def stat(text, name):
        return int(re.search(name + r":(\d+)", text).group(1))
    before = info(c, "stats")
    c.command("CONFIG", "RESETSTAT")
    c.command("SET", "s", "v")
    c.command("LPUSH", "s", "x")  # WRONGTYPE: failed
    c.command("GET")              # arity: rejected
    c.command("NOSUCHCOMMAND")
    stats = info(c, "commandstats", "errorstats", "stats")
    check(stat(before, "total_commands_processed") > 10 and stat(stats, "total_commands_processed") <= 5,
          "CONFIG RESETSTAT restarts total_commands_processed")
    check(stat(before, "total_connections_received") > 0 and stat(stats, "total_connections_received") == 0,
          "CONFIG RESETSTAT restarts total_connections_received")
    check("cmdstat_lpush:calls=1," in stats and "failed_calls=1" in stats, "failed_calls counts WRONGTYPE")
    check("cmdstat_get:calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0" in stats,
          "rejected_calls counts an arity error")
    check("errorstat_WRONGTYPE:count=1" in stats and "errorstat_ERR:count=2" in stats,
          "errorstats by code")
    check("total_error_replies:3" in stats, "total_error_replies:3")
    for how, want in (("TIMEOUT", (b"*", None)),
                      ("ERROR", (b"-", b"UNBLOCKED client unblocked via CLIENT UNBLOCK"))):
        blocked = Client(port)
        blocked_id = blocked.command("CLIENT", "ID")[1].decode()
        blocked.sock.sendall(blocked.encode(["BRPOP", "nothing-here", "0"]))
        deadline = time.time() + 5
        while "blocked_clients:1" not in info(c, "clients") and time.time() < deadline:
            time.sleep(0.02)
        check(c.command("CLIENT", "UNBLOCK", blocked_id, how) == (b":", b"1"), f"CLIENT UNBLOCK {how}: 1")
        check(blocked.reply() == want, f"CLIENT UNBLOCK {how}: the blocked client gets {want}")
        check(blocked.command("PING") == (b"+", b"PONG"), "and goes on")
    # Each counted once, as Redis counts a blocked command when it ends; the
    # error in errorstats (Redis's unit/info, "errorstats: blocking commands").
    stats = info(c, "commandstats") + info(c, "errorstats") + info(c, "stats")
    brpop = next((line for line in stats.splitlines() if line.startswith("cmdstat_brpop:")), "")
    check(brpop.startswith("cmdstat_brpop:calls=2,") and brpop.endswith(",failed_calls=1"),
          f"the two unblocked BRPOPs: 2 calls, 1 failed ({brpop})")
    check("errorstat_UNBLOCKED:count=1" in stats and "total_error_replies:4" in stats,
          "the UNBLOCKED error in errorstats and total_error_replies")
    check(c.command("CLIENT", "UNBLOCK", "1") == (b":", b"0"), "CLIENT UNBLOCK of a client not blocked: 0")


def client_reply(port):
    c, listener = Client(port), Client(port)
    listener.command("SUBSCRIBE", "news")
    c.sock.sendall(c.encode(["CLIENT", "REPLY", "OFF"]) + c.encode(["SET", "a", "1"]) +
                   c.encode(["SUBSCRIBE", "confirmed"]) + c.encode(["UNSUBSCRIBE"]) +
                   c.encode(["CLIENT", "REPLY", "SKIP"]) + c.encode(["CLIENT", "REPLY", "ON"]) +
                   c.encode(["GET", "a"]) + c.encode(["CLIENT", "REPLY", "SKIP"]) +
                   c.encode(["GET", "a"]) + c.encode(["PING"]))
    check(c.reply()[1][0] == (b"$", b"subscribe") and c.reply()[1][0] == (b"$", b"unsubscribe"),
          "CLIENT REPLY OFF: (un)subscribe confirmations still come, as pushes do")
    check(c.reply() == (b"+", b"OK"), "CLIENT REPLY ON answers OK, nothing else before it")
    check(c.reply() == (b"$", b"1"), "then GET answers")
    check(c.reply() == (b"+", b"PONG"), "SKIP drops its own reply and the next command's only")
    Client(port).command("PUBLISH", "news", "hi")
    check(listener.reply()[1][2] == (b"$", b"hi"), "Pub/Sub messages are not replies")


def databases(port):
    c, other = Client(port), Client(port)
    c.command("FLUSHALL")
    c.command("SET", "k", "zero")
    c.command("SELECT", "9")
    c.command("SET", "k", "nine")
    c.command("RPUSH", "list", "a", "b")
    check(c.command("GET", "k") == (b"$", b"nine") and other.command("GET", "k") == (b"$", b"zero"),
          "SELECT: databases 0 and 9 keep their own k")
    check(c.command("SELECT", "16") == (b"-", b"ERR DB index is out of range"), "SELECT 16 refused")
    check(c.command("MOVE", "list", "3") == (b":", b"1") and c.command("EXISTS", "list") == (b":", b"0"),
          "MOVE list 3")
    check(c.command("MOVE", "k", "0") == (b":", b"0"), "MOVE onto an existing key: 0")
    other.command("WATCH", "k")
    c.command("SWAPDB", "0", "9")
    other.command("MULTI")
    other.command("SET", "k", "late")
    check(other.command("EXEC") == (b"*", None), "SWAPDB touches a watched key that exists")
    check(other.command("GET", "k") == (b"$", b"nine"), "after SWAPDB 0 9, database 0 holds 9's keys")
    blocked = Client(port)
    blocked.command("SELECT", "5")
    blocked.sock.sendall(blocked.encode(["BLPOP", "work", "0"]))
    time.sleep(0.2)
    c.command("SELECT", "4")
    c.command("RPUSH", "work", "job")
    c.command("SWAPDB", "4", "5")
    check(blocked.reply() == (b"*", [(b"$", b"work"), (b"$", b"job")]),
          "a client blocked on a key of a swapped database is served")
    check(other.command("DBSIZE") == (b":", b"1"), "DBSIZE of database 0")
    keyspace = info(other, "keyspace")
    check("db0:keys=1" in keyspace and "db3:keys=1" in keyspace and "db9:keys=1" in keyspace,
          f"INFO keyspace per database ({keyspace!r})")


def config(port):
    c = Client(port)
    check(c.command("CONFIG", "SET", "hash-max-ziplist-entries", "7") == (b"+", b"OK"),
          "CONFIG SET of a kept parameter")
    check(c.command("CONFIG", "GET", "hash-max-listpack-entries")[1][1] == (b"$", b"7"),
          "its new name shows what was set under the old")
    check(c.command("CONFIG", "SET", "maxmemory", "2mb") == (b"+", b"OK") and
          c.command("CONFIG", "GET", "maxmemory")[1][1] == (b"$", b"2097152"), "memory values in bytes")
    check(c.command("CONFIG", "SET", "appendonly", "maybe")[0] == b"-", "a bad bool refused")
    check(c.command("CONFIG", "SET", "daemonize", "yes") ==
          (b"-", b"ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set immutable config"),
          "an immutable parameter refused")
    check(c.command("CONFIG", "SET", "no-such-thing", "1")[1].startswith(b"ERR Unknown option"),
          "an unknown parameter refused")
    check(c.command("CONFIG", "GET", "databases")[1][1] == (b"$", b"16"), "databases 16")
    c.command("CONFIG", "SET", "requirepass", "sesame")
    check(Client(port).command("GET", "k")[1].startswith(b"NOAUTH"), "requirepass acts on new clients")
    check(c.command("GET", "k")[0] == b"$", "a client already in stays in")
    c.command("CONFIG", "SET", "requirepass", "")


def modules(port, enabled):
    c = Client(port)
    check(c.command("MODULE", "LIST") == (b"*", []), "MODULE LIST: no module")
    check(c.command("MODULE", "HELP")[1][1] == (b"+", b"LIST"), "MODULE HELP lists LIST first")
    check(c.command("MODULE", "NOPE") == (b"-", b"ERR unknown subcommand 'NOPE'. Try MODULE HELP."),
          "an unknown MODULE subcommand refused as Redis refuses it")
    load = c.command("MODULE", "LOAD", "/nowhere/module.so")
    unload = c.command("MODULE", "UNLOAD", "nothing")
    if enabled:
        check(load == (b"-", b"ERR Error loading the extension. Please check the server logs."),
              "MODULE LOAD allowed, and failing as Redis's does: %r" % (load,))
        check(unload == (b"-", b"ERR Error unloading module: no such module with that name"),
              "MODULE UNLOAD of a module not loaded: %r" % (unload,))
    else:
        for what, got in (("LOAD", load), ("UNLOAD", unload)):
            check(got[1].startswith(b"ERR MODULE command not allowed"),
                  "MODULE %s refused without enable-module-command: %r" % (what, got))


def latency_monitor(port):
    c = Client(port)
    c.command("CONFIG", "SET", "latency-monitor-threshold", "0")
    c.command("LATENCY", "RESET")
    c.command("DEBUG", "SLEEP", "0.05")
    check(c.command("LATENCY", "LATEST") == (b"*", []), "LATENCY: nothing sampled while the threshold is 0")
    check(c.command("LATENCY", "DOCTOR")[1].startswith(b"The latency monitor is off"),
          "LATENCY DOCTOR: says the monitor is off")
    c.command("CONFIG", "SET", "latency-monitor-threshold", "20")
    c.command("DEBUG", "SLEEP", "0.05")
    c.command("GET", "k")  # fast, and below the threshold
    latest = c.command("LATENCY", "LATEST")[1]
    check(len(latest) == 1 and latest[0][1][0][1] == b"command" and int(latest[0][1][2][1]) >= 50,
          f"LATENCY LATEST: one 'command' event of 50 ms or more ({latest})")
    history = c.command("LATENCY", "HISTORY", "command")[1]
    check(len(history) == 1 and int(history[0][1][1][1]) >= 50, f"LATENCY HISTORY command: {history}")
    graph = c.command("LATENCY", "GRAPH", "command")
    check(graph[0] == b"$" and graph[1].startswith(b"command - high ") and b"#" in graph[1],
          "LATENCY GRAPH command: a chart of its samples")
    check(c.command("LATENCY", "GRAPH", "fork") == (b"-", b"ERR No samples available for event 'fork'"),
          "LATENCY GRAPH of an event with no sample: Redis's error")
    check(b"command: 1 seconds with a sample" in c.command("LATENCY", "DOCTOR")[1],
          "LATENCY DOCTOR: names the event")
    check(c.command("LATENCY", "RESET") == (b":", b"1"), "LATENCY RESET: the one event")
    c.command("CONFIG", "SET", "latency-monitor-threshold", "0")


def debug(port):
    c = Client(port)
    c.command("FLUSHALL")
    empty = c.command("DEBUG", "DIGEST")
    check(empty == (b"+", b"0" * 40), "DEBUG DIGEST of nothing: 40 zeros")
    c.command("HSET", "h", "f", "v")
    one = c.command("DEBUG", "DIGEST")
    c.command("DEBUG", "RELOAD")
    check(c.command("DEBUG", "DIGEST") == one and one != empty, "DEBUG RELOAD keeps the digest")
    c.command("DEBUG", "SET-ACTIVE-EXPIRE", "0")
    c.command("CONFIG", "SET", "notify-keyspace-events", "Ex")
    events = Client(port)
    events.command("SUBSCRIBE", "__keyevent@0__:expired")
    c.command("FLUSHALL")
    c.command("SET", "t", "v", "PX", "1")
    c.command("SET", "u", "v", "PX", "1")
    time.sleep(0.5)
    check("expired_keys:0" in info(c, "stats") and c.command("DBSIZE") == (b":", b"2")
          and c.command("DEBUG", "OBJECT", "t")[0] == b"+",
          "SET-ACTIVE-EXPIRE 0: expired keys stay stored, not swept (DBSIZE and DEBUG OBJECT "
          "see them, as Redis's)")
    check(c.command("EXISTS", "t") == (b":", b"0") and c.command("DBSIZE") == (b":", b"1")
          and "expired_keys:1" in info(c, "stats"),
          "lazy expiry: the read that meets an expired key deletes it")
    check(events.reply()[1][2] == (b"$", b"t"), "lazy expiry: an 'expired' event for it")
    c.command("DEBUG", "SET-ACTIVE-EXPIRE", "1")
    deadline = time.time() + 5
    while "expired_keys:2" not in info(c, "stats") and time.time() < deadline:
        time.sleep(0.05)
    check("expired_keys:2" in info(c, "stats") and events.reply()[1][2] == (b"$", b"u"),
          "SET-ACTIVE-EXPIRE 1: the sweep takes the other, with its event")
    c.command("CONFIG", "SET", "notify-keyspace-events", "")


# (client, command) steps run while a monitor listens; "w" is a second
# client that a blocked BLPOP of "c" waits on.
MONITOR_STEPS = [
    ("c", ["SET", "k", 'va"l\\ue\n\x01\xff']),
    ("c", ["GET", "k"]),
    ("c", ["AUTH", "secret"]),
    ("c", ["AUTH", "user", "secret"]),
    ("c", ["HELLO", "2", "AUTH", "user", "secret", "SETNAME", "x"]),
    ("c", ["EVAL", "redis.call('set', KEYS[1], ARGV[1]); return redis.call('get', 'k')", "1", "s", "v"]),
    ("c", ["MULTI"]), ("c", ["INCR", "n"]), ("c", ["NOSUCHCOMMAND"]), ("c", ["EXEC"]),
    ("c", ["MULTI"]), ("c", ["INCR", "n"]), ("c", ["EXEC"]),
    ("c", ["CONFIG", "GET", "maxmemory"]), ("c", ["CLIENT", "LIST"]), ("c", ["SLOWLOG", "LEN"]),
    ("c", ["CLIENT", "GETNAME"]), ("c", ["GET"]), ("c", ["SELECT", "3"]), ("c", ["LPUSH", "l", "a"]),
    ("c", ["SELECT", "0"]), ("c", ["PING"]),
]


def monitor_lines(port):
    """The lines a monitor gets for MONITOR_STEPS and a BLPOP that blocks
    until another client pushes (time and ports masked); then whether a
    RESET monitor, and a closed one, still get lines."""
    mon, c, w = Client(port), Client(port), Client(port)
    lines = [mon.command("MONITOR")]
    lines.append(("monitor flag", "flags=O " in c.command("CLIENT", "LIST")[1].decode()))
    for _, step in MONITOR_STEPS:
        c.command(*step)
    c.sock.sendall(c.encode(["BLPOP", "q", "0"]))
    time.sleep(0.2)  # blocked
    w.command("RPUSH", "q", "x")
    c.reply()
    c.command("ECHO", "end")
    while True:
        kind, line = mon.reply()
        line = re.sub(rb"^\d+\.\d{6} \[(\d+) 127\.0\.0\.1:\d+\]", rb"T [\1 client]", line)
        lines.append((kind, re.sub(rb"^\d+\.\d{6} ", b"T ", line)))
        if line.lower().endswith(b'"echo" "end"'):
            break
    lines.append(mon.command("RESET"))
    c.command("SET", "after", "reset")
    lines.append(("after RESET", "flags=O" in c.command("CLIENT", "LIST")[1].decode()))
    mon.sock.sendall(mon.encode(["PING"]))
    lines.append(mon.reply())  # PONG, no monitor line before it
    lines.append(("in MULTI", c.command("MULTI"), c.command("MONITOR"), c.command("EXEC")))
    return lines


OOM_STEPS = [
    ["SET", "k", "v"], ["CONFIG", "SET", "maxmemory", "1"], ["CONFIG", "GET", "maxmemory"],
    ["SET", "k", "w"], ["GET", "k"], ["DEL", "k"], ["INCR", "n"], ["EXISTS", "k"],
    ["MULTI"], ["GET", "k"], ["DISCARD"],
    ["EVAL", "return redis.call('get', 'k')", "0"],
    ["EVAL", "redis.call('set', 'k', 'x')", "0"],
    ["EVAL", "return redis.pcall('set', 'k', 'x')", "0"],
    ["EVAL", "redis.call('del', 'k'); return redis.call('set', 'k', 'x')", "0"],
    ["EVAL", "#!lua\nreturn 1", "0"],
    ["EVAL", "#!lua flags=no-writes\nreturn redis.call('get', 'k')", "0"],
    ["EVAL", "#!lua flags=allow-oom\nreturn redis.call('set', 'k', 'y')", "0"],
    ["CONFIG", "SET", "maxmemory", "1gb"], ["CONFIG", "GET", "maxmemory"],
    ["CONFIG", "SET", "maxmemory", "0"], ["SET", "k", "z"], ["GET", "k"],
]


def oom_replies(port):
    """Replies to OOM_STEPS, then to a MULTI whose EXEC meets the limit."""
    c, admin = Client(port), Client(port)
    replies = [c.command(*step) for step in OOM_STEPS]
    replies += [c.command("MULTI"), c.command("SET", "k", "1"), c.command("GET", "k")]
    replies.append(admin.command("CONFIG", "SET", "maxmemory", "1"))
    replies.append(c.command("EXEC"))
    replies += [c.command("MULTI"), c.command("GET", "k")]
    replies.append(c.command("EXEC"))
    replies.append(admin.command("CONFIG", "SET", "maxmemory", "0"))
    return replies


def state_change_replies(port):
    """Replies of EXECs whose commands the server's state refuses since
    they were queued, and of a replica without its primary that must not
    serve stale data."""
    c, admin = Client(port), Client(port)
    replies = [c.command("SET", "xx", "1"), c.command("MULTI"), c.command("INCR", "xx")]
    replies.append(admin.command("CONFIG", "SET", "min-replicas-to-write", "2"))
    replies += [c.command("EXEC"), c.command("GET", "xx")]
    replies.append(admin.command("CONFIG", "SET", "min-replicas-to-write", "0"))
    replies.append(c.command("CONFIG", "SET", "replica-serve-stale-data", "no"))
    replies.append(c.command("CONFIG", "GET", "slave-serve-stale-data"))
    replies += [c.command("MULTI"), c.command("GET", "xx")]
    replies.append(admin.command("REPLICAOF", "127.0.0.1", "1"))  # nobody there
    replies += [c.command("EXEC"), c.command("GET", "xx"), c.command("PING"),
                c.command("CONFIG", "GET", "replica-serve-stale-data")]
    # No stale data through a script, unless it says allow-stale (then not
    # through a command that is not flagged stale).
    for body in ("return redis.call('get', 'xx')", "#!lua\nreturn redis.call('get', 'xx')",
                 "#!lua flags=allow-stale,no-writes\nreturn redis.call('get', 'xx')",
                 "#!lua flags=allow-stale,no-writes\nreturn redis.call('ping')"):
        got = c.command("EVAL", body, "0")
        replies.append((got[0], got[1].split(b" script:")[0] if got[0] == b"-" else got[1]))
    replies.append(admin.command("REPLICAOF", "NO", "ONE"))
    replies += [c.command("GET", "xx"), c.command("CONFIG", "SET", "replica-serve-stale-data", "yes")]
    for refused in ("SAVE", "SHUTDOWN"):  # not inside MULTI
        replies += [c.command("MULTI"), c.command("SET", "foo", "bar"), c.command(refused),
                    c.command("EXEC"), c.command("GET", "foo")]
    return replies


GETKEYSANDFLAGS = [
    ["SET", "k", "v"], ["SET", "k", "v", "GET"], ["MSET", "k1", "v1", "k2", "v2"],
    ["LMOVE", "a", "b", "LEFT", "RIGHT"], ["BLMOVE", "a", "b", "LEFT", "RIGHT", "0"],
    ["ZUNIONSTORE", "d", "2", "a", "b"], ["BITOP", "AND", "d", "a", "b"], ["COPY", "a", "b"],
    ["RENAME", "a", "b"], ["SMOVE", "a", "b", "m"], ["MEMORY", "USAGE", "k"],
    ["EVAL", "return 1", "2", "a", "b"], ["DEL", "a", "b", "c"], ["HSET", "h", "f", "v"],
    ["GETDEL", "k"], ["SINTERSTORE", "d", "a", "b"], ["ZRANGESTORE", "d", "s", "0", "-1"],
    ["GET"], ["PING"], ["NOSUCH", "k"],
]


def getkeysandflags_replies(port):
    c, resp3 = Client(port), Client(port)
    resp3.command("HELLO", "3")
    return [conn.command("COMMAND", "GETKEYSANDFLAGS", *args)
            for args in GETKEYSANDFLAGS for conn in (c, resp3)]


HELP_CONTAINERS = ["CLIENT", "COMMAND", "CONFIG", "FUNCTION", "MEMORY", "OBJECT", "PUBSUB", "SLOWLOG",
                   "ACL", "LATENCY", "MODULE", "SCRIPT", "XGROUP", "XINFO"]


def help_replies(port):
    """Every container's HELP, and COMMAND LIST's filters over subcommands."""
    c = Client(port)
    return ([c.command(container, "HELP") for container in HELP_CONTAINERS] +
            [c.command("COMMAND", "LIST", "FILTERBY", "PATTERN", "cl*help"),
             without_newer(c.command("COMMAND", "LIST", "FILTERBY", "ACLCAT", "read"))])


def without_newer(reply):
    """A list of command names without those Redis 7.0 lacks."""
    return (reply[0], [x for x in reply[1] if x[1].decode() not in NOT_IN_REDIS_70])


def against_redis(server_bin, tmp):
    if shutil.which("redis-server") is None:
        check(False, "MONITOR, maxmemory: redis-server not found (scripts/setup.sh installs it)")
        return
    redis_port, redis_proc = start_redis(tmp)
    port, proc = checks.start_server(server_bin, os.path.join(tmp, "monitor"))
    try:
        want, got = monitor_lines(redis_port), monitor_lines(port)
        check(want == got, f"MONITOR: {len(got)} lines and states as Redis's"
              + ("" if want == got else f"\n  Redis:  {want}\n  teksdb: {got}"))
        want, got = oom_replies(redis_port), oom_replies(port)
        for i, (a, b) in enumerate(zip(want, got)):
            check(a == b, f"maxmemory step {i}: {b}" + ("" if a == b else f" (Redis: {a})"))
        want, got = getkeysandflags_replies(redis_port), getkeysandflags_replies(port)
        for i, (a, b) in enumerate(zip(want, got)):
            check(a == b, f"GETKEYSANDFLAGS {GETKEYSANDFLAGS[i // 2]}: {b}" + ("" if a == b else f" (Redis: {a})"))
        want, got = help_replies(redis_port), help_replies(port)
        # (SCRIPT DEBUG, Lua's debugger, is not run here: SCRIPT HELP leaves it out.)
        script = HELP_CONTAINERS.index("SCRIPT")
        want[script] = (want[script][0], [line for line in want[script][1]
                                          if b"DEBUG" not in line[1] and b"debug mode" not in line[1]])
        names = [f"{c} HELP" for c in HELP_CONTAINERS] + ["COMMAND LIST FILTERBY PATTERN cl*help",
                                                          "COMMAND LIST FILTERBY ACLCAT read"]
        for name, a, b in zip(names, want, got):
            check(a[0] == b[0] and sorted(a[1]) == sorted(b[1]) if name.startswith("COMMAND LIST") else a == b,
                  f"{name}" + ("" if a == b else f": {b}\n  (Redis: {a})"))
        want, got = state_change_replies(redis_port), state_change_replies(port)
        for i, (a, b) in enumerate(zip(want, got)):
            check(a == b, f"state change step {i}: {b}" + ("" if a == b else f" (Redis: {a})"))
    finally:
        stop([redis_proc, proc])


def main():
    server_bin = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="teksdb-introspection-")
    port, proc = checks.start_server(server_bin, os.path.join(tmp, "db"))
    try:
        check(Client(port).command("DEBUG", "SLEEP", "0")[1].startswith(b"ERR DEBUG command not allowed"),
              "DEBUG refused without --enable-debug-command")
        for part in (info_sections, client_reply, databases, config):
            part(port)
        modules(port, enabled=False)
    finally:
        stop([proc])
    port, proc = checks.start_server(server_bin, os.path.join(tmp, "debug"), "--enable-debug-command",
                                     "yes", "--enable-module-command", "yes")
    try:
        debug(port)
        latency_monitor(port)
        modules(port, enabled=True)
    finally:
        stop([proc])
    against_redis(server_bin, tmp)
    return checks.finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
