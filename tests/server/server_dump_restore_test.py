#!/usr/bin/env python3
"""The way in from Redis: DUMP / RESTORE and the RDB importer, against the
real redis-server 7.0 (Debian's), with random data of every type and
encoding:
  - DUMP / RESTORE round trips, both ways: every value Redis DUMPs
    RESTOREs here to the same value, and every value DUMPed here RESTOREs
    in Redis to the same value (streams with their groups, consumers and
    pending entries too);
  - RESTORE's options and errors, reply for reply as Redis's (BUSYKEY,
    REPLACE, TTL, ABSTTL, a TTL already past, IDLETIME/FREQ checks, bad
    footers, bad data);
  - damaged payloads (bytes flipped, cut short, huge lengths, the CRC
    made right again so that the reader itself is tried) never hurt the
    server: each is refused or gives a readable key, and it keeps
    answering;
  - teksdb-rdb-import of an RDB file redis-server wrote from random data
    in several databases, with TTLs, keys already expired and a function
    library, then every key compared with the Redis that wrote it; and of
    the old RDB files of Redis's own test assets (zipmaps, ziplists,
    quicklists of RDB versions 3 to 9, from ../shared/redis's tarball);
  - the importer refuses damaged and foreign files with a message and
    exit status 2, having sent nothing; files damaged inside with their
    checksum made right are refused where the damage is, or load, never
    crash;
  - MIGRATE to redis-server and to another teksdb-server and from
    redis-server here: moves and copies, TTLs, KEYS, NOKEY, BUSYKEY,
    REPLACE, AUTH, a 100,000-element list, IOERR for a silent target
    (within the timeout) and for no target, the kept connection.

Usage: server_dump_restore_test.py PATH/TO/teksdb-server
"""

import os
import random
import socket
import subprocess
import sys
import tarfile
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from server_checks import Checks, start_redis, stop  # noqa: E402
from resp_client import Client, free_port  # noqa: E402
from redis_crc64 import Crc64OfCopies, crc64  # noqa: E402

checks = Checks("server_dump_restore")
check = checks.check
IMPORTER = os.path.join(os.path.dirname(os.path.abspath(sys.argv[1])), "teksdb-rdb-import")
TARBALL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared",
                       "redis", "redis-7.0.15.tar.gz")
ASSETS = ["encodings", "hash-zipmap", "hash-ziplist", "list-quicklist", "zset-ziplist"]


def with_footer(body, version=10):
    head = body + bytes([version & 0xff, version >> 8])
    return head + crc64(head).to_bytes(8, "little")


def ok(reply):
    return reply[0] == b"+"


def value_of(c, key):
    """A key's type and whole value, comparable between servers."""
    kind = c.command("TYPE", key)[1]
    if kind == b"string":
        return kind, c.command("GET", key)[1]
    if kind == b"list":
        return kind, [e[1] for e in c.command("LRANGE", key, 0, -1)[1]]
    if kind == b"set":
        return kind, sorted(e[1] for e in c.command("SMEMBERS", key)[1])
    if kind == b"zset":
        flat = [e[1] for e in c.command("ZRANGE", key, 0, -1, "WITHSCORES")[1]]
        return kind, [(flat[i], float(flat[i + 1])) for i in range(0, len(flat), 2)]
    if kind == b"hash":
        flat = [e[1] for e in c.command("HGETALL", key)[1]]
        return kind, sorted((flat[i], flat[i + 1]) for i in range(0, len(flat), 2))
    if kind == b"stream":
        groups = c.command("XINFO", "GROUPS", key)
        pending = [c.command("XPENDING", key, g[1][1][1], "-", "+", "1000")
                   for g in groups[1]]
        # (the idle times in XPENDING's replies move with the clock)
        pending = [[(p[1][0], p[1][1], p[1][3]) for p in reply[1]] for reply in pending]
        return kind, (c.command("XRANGE", key, "-", "+"), groups, pending)
    return kind, None


def random_bytes(rng, n):
    pick = rng.random()
    if pick < 0.3:
        return bytes(rng.randrange(256) for _ in range(n))
    if pick < 0.5:
        return str(rng.randint(-2**63, 2**63 - 1) if rng.random() < 0.3 else rng.randint(-5000, 70000)).encode()
    return (rng.choice([b"a", b"xy", b"hello "]) * (n // 2 + 1))[:n]


def random_score(rng):
    return rng.choice([rng.randint(-1000, 1000), rng.uniform(-1e6, 1e6), float("inf"), float("-inf"),
                       rng.random(), 1e300])


def fill(c, rng, prefix, n):
    """n random keys of every type and encoding; returns their names."""
    keys = []
    for i in range(n):
        key = f"{prefix}{i}".encode() + (bytes([rng.randrange(256)]) if rng.random() < 0.1 else b"")
        kind = rng.choice(["string", "list", "set", "intset", "zset", "hash", "stream"])
        big = rng.random() < 0.25
        size = rng.randint(520, 1500) if big else rng.randint(1, 20)
        if kind == "string":
            c.command("SET", key, random_bytes(rng, rng.choice([1, 5, 30, 300, 5000])))
        elif kind == "list":
            c.command("RPUSH", key, *[random_bytes(rng, rng.randint(0, 90)) for _ in range(size)])
        elif kind == "set":
            c.command("SADD", key, *[random_bytes(rng, rng.randint(1, 20)) for _ in range(size)])
        elif kind == "intset":
            c.command("SADD", key, *[rng.choice([rng.randint(-40000, 40000), rng.randint(-2**63, 2**63 - 1)])
                                     for _ in range(size)])
        elif kind == "zset":
            args = []
            for _ in range(size):
                args += [str(random_score(rng)), random_bytes(rng, rng.randint(1, 20))]
            c.command("ZADD", key, *args)
        elif kind == "hash":
            args = []
            for _ in range(size):
                args += [random_bytes(rng, rng.randint(1, 15)),
                         random_bytes(rng, rng.choice([3, 10, 100 if rng.random() < 0.1 else 5]))]
            c.command("HSET", key, *args)
        else:
            for j in range(size):
                c.command("XADD", key, f"{j + 1}-{rng.randint(0, 3)}", "f", random_bytes(rng, 8),
                          *(["g", random_bytes(rng, 30)] if rng.random() < 0.3 else []))
            for j in range(rng.randint(0, 3)):
                c.command("XDEL", key, f"{rng.randint(1, size)}-0")
            for g in range(rng.randint(0, 2)):
                c.command("XGROUP", "CREATE", key, f"g{g}", "0")
                c.command("XREADGROUP", "GROUP", f"g{g}", rng.choice(["alice", "bob"]), "COUNT",
                          rng.randint(1, 30), "STREAMS", key, ">")
                c.command("XGROUP", "CREATECONSUMER", key, f"g{g}", "carol")
        keys.append(key)
    return keys


def dump_restore_both_ways(teks, redis, rng):
    t, r = Client(teks), Client(redis)
    keys = fill(r, rng, "r", 150)
    fill(t, random.Random(rng.random()), "t", 150)
    bad = 0
    for key in keys:
        payload = r.command("DUMP", key)[1]
        reply = t.command("RESTORE", b"from-redis:" + key, 0, payload, "REPLACE")
        if not ok(reply) or value_of(t, b"from-redis:" + key) != value_of(r, key):
            bad += 1
            print("  Redis -> teksdb differs:", key, reply)
    check(bad == 0, f"DUMP from redis-server RESTOREs here to the same value ({len(keys)} keys of every type)")
    bad = encodings = 0
    for key in [k[1] for k in t.command("KEYS", "t*")[1]]:
        payload = t.command("DUMP", key)[1]
        reply = r.command("RESTORE", b"from-teks:" + key, 0, payload, "REPLACE")
        if not ok(reply) or value_of(r, b"from-teks:" + key) != value_of(t, key):
            bad += 1
            print("  teksdb -> Redis differs:", key, reply)
        encodings += 1
    check(bad == 0 and encodings > 100,
          f"DUMP from here RESTOREs in redis-server to the same value ({encodings} keys)")
    # Back again: a payload that went through both is read the same.
    key = keys[0]
    once = r.command("DUMP", key)[1]
    t.command("RESTORE", "twice", 0, once, "REPLACE")
    r.command("RESTORE", "twice", 0, t.command("DUMP", "twice")[1], "REPLACE")
    check(value_of(r, b"twice") == value_of(r, key), "Redis -> teksdb -> Redis keeps the value")


def restore_options(teks, redis):
    """RESTORE's replies for options and errors, as Redis's."""
    results = {}
    for name, port in (("teks", teks), ("redis", redis)):
        c = Client(port)
        c.command("FLUSHALL")
        c.command("SET", "foo", "bar")
        payload = c.command("DUMP", "foo")[1]
        c.command("RPUSH", "list", "a", "b")
        out = [
            c.command("RESTORE", "foo", 0, payload),
            c.command("RESTORE", "foo", 0, payload, "REPLACE"),
            c.command("RESTORE", "new", 5000, payload),
            c.command("RESTORE", "new2", -1, payload),
            c.command("RESTORE", "new2", "abc", payload),
            c.command("RESTORE", "new2", 0, payload, "bogus"),
            c.command("RESTORE", "new2", 0, payload, "IDLETIME", -1),
            c.command("RESTORE", "new2", 0, payload, "FREQ", 256),
            c.command("RESTORE", "new2", 0, payload, "FREQ", 5, "IDLETIME", 5),
            c.command("RESTORE", "new2", 0, payload, "IDLETIME", 5),
            c.command("RESTORE", "new3", 0, payload[:-1] + bytes([payload[-1] ^ 1])),
            c.command("RESTORE", "new3", 0, b"\x00"),
            c.command("RESTORE", "new3", 0, with_footer(b"\x00\x28ab")),
            c.command("RESTORE", "new3", 0, with_footer(b"\x00\x02ab", version=13)),
            c.command("RESTORE", "new3", 0, with_footer(b"\x03\x00")),
            # An absolute TTL already past: no key, and REPLACE deletes.
            c.command("RESTORE", "list", int(time.time() * 1000) - 5000, payload, "ABSTTL", "REPLACE"),
            c.command("EXISTS", "list"),
            c.command("RESTORE", "abs", int(time.time() * 1000) + 60000, payload, "ABSTTL"),
            c.command("DUMP", "nosuchkey"),
            c.command("RESTORE", "list", 0, payload, "REPLACE"),
            c.command("TYPE", "list"),
            c.command("GET", "list"),
        ]
        pttl = int(c.command("PTTL", "new")[1])
        abs_ttl = int(c.command("PTTL", "abs")[1])
        out.append(3000 < pttl <= 5000 and 50000 < abs_ttl <= 60000)
        results[name] = out
    for i, (mine, theirs) in enumerate(zip(results["teks"], results["redis"])):
        check(mine == theirs, f"RESTORE case {i}: {mine!r} as Redis's {theirs!r}")


def damaged_payloads(teks, redis, rng):
    """Payloads of every type, damaged and made checksum-whole, RESTOREd:
    refused with Redis's error or read as some value; the server lives."""
    r, t = Client(redis), Client(teks)
    keys = [k[1] for k in r.command("KEYS", "r*")[1]]
    bodies = [r.command("DUMP", k)[1][:-10] for k in keys]
    tried = refused = 0
    for _ in range(3000):
        body = bytearray(rng.choice(bodies))
        how = rng.random()
        if how < 0.4:
            for _ in range(rng.randint(1, 3)):
                body[rng.randrange(len(body))] = rng.randrange(256)
        elif how < 0.6:
            body = body[:rng.randrange(len(body))]
        elif how < 0.8:
            at = rng.randrange(len(body))
            body[at:at] = rng.choice([b"\x81\xff\xff\xff\xff\xff\xff\xff\xff", b"\x80\xff\xff\xff\xff",
                                      b"\xc3\x10\xff\xff\xff\xff", b"\xff\xff\xff\xff"])
        else:
            at = rng.randrange(len(body))
            body[at:at + rng.randint(1, 8)] = b""
        reply = t.command("RESTORE", "fuzzed", 0, with_footer(bytes(body)), "REPLACE")
        tried += 1
        if reply == (b"-", b"ERR Bad data format"):
            refused += 1
        elif ok(reply):
            value_of(t, "fuzzed")  # readable
        else:
            check(False, f"a damaged payload got {reply!r}")
            break
    check(t.command("PING") == (b"+", b"PONG") and refused > tried // 3,
          f"{tried} damaged payloads: {refused} refused as Redis refuses them, the rest readable, "
          "the server alive")


def silent_listener():
    """A port that accepts connections and never answers; (port, socket)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    return listener.getsockname()[1], listener


def migrate(teks_bin, teks, redis, tmp):
    """MIGRATE from here to redis-server, to another teksdb-server, and
    from redis-server to here: moved or copied values, TTLs, KEYS, NOKEY,
    BUSYKEY and REPLACE, AUTH, a large list, timeouts and refused
    connections (IOERR), the kept connection (INFO), all as Redis
    answers."""
    t, r = Client(teks), Client(redis)
    other_port, other = checks.start_server(teks_bin, os.path.join(tmp, "migrate-target"))
    o = Client(other_port)
    try:
        for c in (t, r, o):
            c.command("FLUSHALL")
        t.command("RPUSH", "list", "a", "b", "c")
        t.command("SET", "ttl", "v", "EX", "100")
        t.command("HSET", "hash", "f", "v", "g", "w")
        check(t.command("MIGRATE", "127.0.0.1", other_port, "list", 0, 5000) == (b"+", b"OK") and
              t.command("EXISTS", "list") == (b":", b"0") and
              value_of(o, "list") == (b"list", [b"a", b"b", b"c"]),
              "MIGRATE moves a list to another teksdb-server")
        check(b"migrate_cached_sockets:1" in t.command("INFO", "stats")[1],
              "INFO: the connection is kept (migrate_cached_sockets:1)")
        check(t.command("MIGRATE", "127.0.0.1", redis, "", 5, 5000, "KEYS", "ttl", "nokey", "hash")
              == (b"+", b"OK"), "MIGRATE ... KEYS to redis-server, a missing key among them")
        r.command("SELECT", 5)
        check(value_of(r, "hash") == (b"hash", [(b"f", b"v"), (b"g", b"w")]) and
              95 <= int(r.command("TTL", "ttl")[1]) <= 100 and t.command("DBSIZE") == (b":", b"0"),
              "redis-server got the hash and the string with its TTL; both left here")
        check(t.command("MIGRATE", "127.0.0.1", redis, "", 5, 5000, "KEYS", "nokey") == (b"+", b"NOKEY"),
              "MIGRATE of keys none of which exist: NOKEY")
        t.command("SET", "busy", "mine")
        r.command("SET", "busy", "theirs")
        check(t.command("MIGRATE", "127.0.0.1", redis, "busy", 5, 5000) ==
              (b"-", b"ERR Target instance replied with error: BUSYKEY Target key name already exists.")
              and t.command("GET", "busy") == (b"$", b"mine"),
              "a key the target has: Redis's error, the key stays")
        check(t.command("MIGRATE", "127.0.0.1", redis, "busy", 5, 5000, "COPY", "REPLACE") == (b"+", b"OK")
              and t.command("GET", "busy") == (b"$", b"mine") and r.command("GET", "busy") == (b"$", b"mine"),
              "COPY REPLACE: replaced there, kept here")
        t.command("RPUSH", "big", *[f"item {i}" for i in range(100000)])
        check(t.command("MIGRATE", "127.0.0.1", redis, "big", 5, 10000) == (b"+", b"OK") and
              r.command("LLEN", "big") == (b":", b"100000") and
              r.command("LINDEX", "big", 99999) == (b"$", b"item 99999"),
              "a list of 100,000 elements migrates whole")
        # From redis-server to here: Redis's own MIGRATE sends RESTORE.
        r.command("SELECT", 0)
        r.command("ZADD", "scores", 1, "a", 2.5, "b")
        r.command("SADD", "members", 1, 2, "x")
        check(r.command("MIGRATE", "127.0.0.1", teks, "", 0, 5000, "KEYS", "scores", "members")
              == (b"+", b"OK") and value_of(t, "scores") == (b"zset", [(b"a", 1.0), (b"b", 2.5)]) and
              value_of(t, "members") == (b"set", [b"1", b"2", b"x"]),
              "redis-server's MIGRATE into teksdb-server")
        o.command("CONFIG", "SET", "requirepass", "secret")
        # (Two keys: the cached connection, authenticated before the
        # password was set, stays so, and runs the RESTORE that follows a
        # refused AUTH, as Redis's does; so may the target have the first.)
        t.command("SET", "auth", "v")
        t.command("SET", "auth-wrong", "v")
        check(t.command("MIGRATE", "127.0.0.1", other_port, "auth-wrong", 0, 5000, "AUTH", "wrong")[1]
              .startswith(b"ERR Target instance replied with error: WRONGPASS"),
              "AUTH with the wrong password: the target's WRONGPASS")
        check(t.command("MIGRATE", "127.0.0.1", other_port, "auth", 0, 5000, "AUTH", "secret")
              == (b"+", b"OK"), "AUTH with the right one: migrated")
        check(t.command("MIGRATE", "127.0.0.1", other_port, "x", 0, 5000, "KEYS", "a") ==
              (b"-", b"ERR When using MIGRATE KEYS option, the key argument must be set to the empty string")
              and t.command("MIGRATE", "127.0.0.1", other_port, "x", 0, 5000, "bogus") ==
              (b"-", b"ERR syntax error") and
              t.command("MIGRATE", "127.0.0.1", other_port, "x", "db", 5000)[0] == b"-",
              "MIGRATE's argument errors, as Redis's")
        t.command("SET", "slow", "v")
        port, listener = silent_listener()
        started = time.time()
        reply = t.command("MIGRATE", "127.0.0.1", port, "slow", 0, 300)
        took = time.time() - started
        listener.close()
        check(reply == (b"-", b"IOERR error or timeout reading to target instance") and took < 3 and
              t.command("GET", "slow") == (b"$", b"v"),
              f"a target that never answers: IOERR after the timeout ({took:.1f} s), the key stays")
        port, listener = silent_listener()
        listener.close()
        check(t.command("MIGRATE", "127.0.0.1", port, "slow", 0, 300) ==
              (b"-", b"IOERR error or timeout connecting to the client"), "nothing listening: IOERR")
        check(t.command("PING") == (b"+", b"PONG"), "the server answers after all of it")
    finally:
        stop([other])


def all_values(port, databases):
    c = Client(port)
    out = {}
    for db in databases:
        c.command("SELECT", db)
        for key in [k[1] for k in c.command("KEYS", "*")[1]]:
            pttl = int(c.command("PTTL", key)[1])
            out[(db, key)] = (value_of(c, key), pttl)
    return out


def same_data(mine, theirs, what):
    differ = [k for k in theirs if k not in mine or mine[k][0] != theirs[k][0] or
              (mine[k][1] < 0) != (theirs[k][1] < 0) or abs(mine[k][1] - theirs[k][1]) > 5000]
    extra = [k for k in mine if k not in theirs]
    for k in (differ + extra)[:5]:
        print("  differs:", k, mine.get(k), theirs.get(k))
    check(not differ and not extra and theirs, f"{what}: {len(theirs)} keys, all as Redis has them")


def import_tool(argv):
    proc = subprocess.run([IMPORTER, *map(str, argv)], capture_output=True, text=True, timeout=300,
                          errors="replace")
    return proc.returncode, proc.stdout, proc.stderr


def rdb_import_random(teks_bin, rng, tmp):
    redis_dir = os.path.join(tmp, "redis-import")
    os.makedirs(redis_dir)
    port, proc = start_redis(redis_dir, "--enable-debug-command", "yes")
    try:
        r = Client(port)
        for db in (0, 3, 15):
            r.command("SELECT", db)
            keys = fill(r, rng, f"db{db}-", 120)
            for key in keys[:20]:
                r.command("PEXPIRE", key, rng.randint(60000, 10**9))
        r.command("SELECT", 0)
        r.command("DEBUG", "SET-ACTIVE-EXPIRE", 0)
        for i in range(5):
            r.command("SET", f"expiring{i}", "x", "PX", 50)
        r.command("FUNCTION", "LOAD",
                  "#!lua name=importedlib\nredis.register_function('imported', function() return 7 end)")
        time.sleep(0.3)  # the expiring keys are past their time, still in the dataset
        check(ok(r.command("SAVE")), "redis-server SAVEs its random data")
        expected = all_values(port, (0, 3, 15))
        # The file to damage: database 0 alone (every type and encoding,
        # a third of the size, so that 150 imports of it stay short).
        os.replace(os.path.join(redis_dir, "dump.rdb"), os.path.join(redis_dir, "all.rdb"))
        for db in (3, 15):
            r.command("SELECT", db)
            r.command("FLUSHDB")
        check(ok(r.command("SAVE")), "redis-server SAVEs database 0 alone")
        os.replace(os.path.join(redis_dir, "dump.rdb"), os.path.join(redis_dir, "db0.rdb"))
    finally:
        stop([proc])
    teks_port, teks = checks.start_server(teks_bin, os.path.join(tmp, "teks-import"))
    try:
        code, out, err = import_tool(["--port", teks_port, os.path.join(redis_dir, "all.rdb")])
        check(code == 0 and "expired (skipped)" in out and " 5\n" in out.split("expired (skipped)")[1][:20],
              f"teksdb-rdb-import of redis-server's dump.rdb: exit {code}, 5 expired keys skipped")
        if code != 0:
            print(out, err[-1000:])
        same_data(all_values(teks_port, (0, 3, 15)), expected, "the imported databases 0, 3 and 15")
        c = Client(teks_port)
        check(c.command("FCALL", "imported", 0) == (b":", b"7"), "the function library came too")
        code, out, err = import_tool(["--port", teks_port, os.path.join(redis_dir, "all.rdb")])
        check(code == 1 and "BUSYKEY" in err, "a second import without --replace: keys refused, named")
        code, out, err = import_tool(["--port", teks_port, "--replace", os.path.join(redis_dir, "all.rdb")])
        check(code == 0, f"a second import with --replace: exit {code}")
        damaged_files(teks_port, os.path.join(redis_dir, "db0.rdb"), tmp, rng)
    finally:
        stop([teks])


def damaged_files(port, rdb, tmp, rng):
    data = open(rdb, "rb").read()
    c = Client(port)
    c.command("SELECT", 0)
    c.command("FLUSHALL")
    # Cut where the last 8 bytes are not all zero: eight zeros there read as
    # a file written with rdbchecksum no, which is read unchecked, as Redis
    # loads it (its keys up to the damage then sent).
    cut = len(data) // 2
    while data[cut - 8:cut] == bytes(8):
        cut += 1
    cases = {
        "cut short": data[:cut],
        "a byte flipped": data[:100] + bytes([data[100] ^ 0x40]) + data[101:],
        "a newer RDB version": b"REDIS0011" + data[9:],
        "not an RDB file": b"hello world, this is not a database",
        "empty": b"",
    }
    for what, content in cases.items():
        path = os.path.join(tmp, "damaged.rdb")
        with open(path, "wb") as f:
            f.write(content)
        code, out, err = import_tool(["--port", port, path])
        check(code == 2 and "teksdb-rdb-import:" in err and int(c.command("DBSIZE")[1]) == 0,
              f"a file {what}: refused (exit {code}: {err.strip()[-120:]}), nothing imported")
    # Damaged inside, the checksum made right again, so that the reader
    # itself meets the damage: an error naming where, or keys the server
    # takes, never a crash of either.
    body = data[:-8]
    crcs = Crc64OfCopies(body)
    outcomes, checked_kinds = {0: 0, 1: 0, 2: 0}, set()
    for _ in range(150):
        damaged = bytearray(body)
        changed = rng.random() < 0.5
        if changed:
            positions = [rng.randrange(9, len(damaged)) for _ in range(rng.randint(1, 4))]
            for p in positions:
                damaged[p] = rng.randrange(256)
            crc = crcs.changed(damaged, positions)
        else:
            del damaged[rng.randrange(9, len(damaged)):]
            crc = crcs.prefix(len(damaged))
        if changed not in checked_kinds:
            checked_kinds.add(changed)
            if crc != crc64(damaged):
                check(False, "Crc64OfCopies gives a damaged copy's CRC as a whole pass does")
                break
        damaged += crc.to_bytes(8, "little")
        with open(path, "wb") as f:
            f.write(damaged)
        code, out, err = import_tool(["--port", port, "--replace", path])
        if code not in outcomes or (code == 2 and "teksdb-rdb-import:" not in err):
            check(False, f"a damaged file: exit {code}, {err[-300:]}")
            break
        outcomes[code] += 1
    check(c.command("PING") == (b"+", b"PONG") and outcomes[2] > 0,
          f"150 files damaged inside with a right checksum: {outcomes[2]} refused with a message, "
          f"{outcomes[0] + outcomes[1]} read (their keys RESTOREd or refused by the server), "
          "the server alive")
    code, _, err = import_tool(["--port", port, os.path.join(tmp, "no-such-file.rdb")])
    check(code == 2 and "cannot open" in err, "a missing file: refused with a message")
    code, _, err = import_tool(["--bogus", rdb])
    check(code == 2 and "unknown flag" in err, "an unknown flag: refused with a message")


def rdb_import_assets(teks_bin, tmp):
    """Redis's own old-format test files, loaded by redis-server and
    imported here, compared key by key."""
    if not os.path.exists(TARBALL):
        check(False, f"{TARBALL} is missing")
        return
    assets = os.path.join(tmp, "assets")
    os.makedirs(assets)
    with tarfile.open(TARBALL) as tar:
        for name in ASSETS:
            member = tar.getmember(f"redis-7.0.15/tests/assets/{name}.rdb")
            with open(os.path.join(assets, name + ".rdb"), "wb") as f:
                f.write(tar.extractfile(member).read())
    teks_port, teks = checks.start_server(teks_bin, os.path.join(tmp, "teks-assets"))
    try:
        for name in ASSETS:
            port = free_port()
            proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                                     "--dir", assets, "--dbfilename", name + ".rdb", "--save", "",
                                     "--appendonly", "no"], stdout=subprocess.DEVNULL)
            try:
                expected = all_values(port, (0,))
            finally:
                stop([proc])
            Client(teks_port).command("FLUSHALL")
            code, out, err = import_tool(["--port", teks_port, os.path.join(assets, name + ".rdb")])
            check(code == 0, f"{name}.rdb imported (exit {code})")
            if code != 0:
                print(err[-1000:])
            same_data(all_values(teks_port, (0,)), expected, f"{name}.rdb")
    finally:
        stop([teks])


def main():
    seed = int(os.environ.get("TEKSDB_TEST_SEED", random.randrange(2**32)))
    print(f"seed {seed} (TEKSDB_TEST_SEED={seed} repeats this run)")
    rng = random.Random(seed)
    tmp = tempfile.mkdtemp(prefix="teksdb-dump-")
    redis_port, redis = start_redis(tmp)
    teks_port, teks = checks.start_server(sys.argv[1], os.path.join(tmp, "db"))
    try:
        dump_restore_both_ways(teks_port, redis_port, rng)
        damaged_payloads(teks_port, redis_port, rng)
        restore_options(teks_port, redis_port)
        migrate(sys.argv[1], teks_port, redis_port, tmp)
    finally:
        stop([teks, redis])
    rdb_import_random(sys.argv[1], rng, tmp)
    rdb_import_assets(sys.argv[1], tmp)
    return checks.finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
