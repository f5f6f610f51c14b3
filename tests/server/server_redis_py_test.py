#!/usr/bin/env python3
"""teksdb-server through redis-py (PyPI's `redis`, the client most Python
applications use), with the client's defaults and with RESP2 and RESP3
chosen explicitly: strings, hashes, sets, sorted sets (scores as floats in
both protocols), default (transactional, MULTI/EXEC) and plain pipelines,
`transaction()` with WATCH retried by 4 threads that lose no increment,
WATCH aborting on another connection's write, a MULTI/EXEC pair of INCRs
that a concurrent reader never sees half done, `Lock` (EVALSHA scripts) guarding
4 threads' increments, register_script, pub/sub (messages, pattern
messages, a handler thread), SCAN and HSCAN iterations
that return every key exactly as stored, INFO parsed by the client (ops/s,
memtable bytes, latency percentiles), expired keys reclaimed in the
background (INFO's expired_keys, DBSIZE), Redis's errors raised as the
client's exceptions, concurrent HINCRBY from a connection pool that loses
no increment, SLOWLOG and CONFIG SET, SAVE, COPY, RANDOMKEY, OBJECT
ENCODING, MEMORY USAGE, LATENCY HISTOGRAM, CLIENT LIST and KILL, CLIENT SETINFO (as redis-py sends it), the pool
reconnecting after a server restart, and AUTH with
--requirepass (also through HELLO 3).

Usage: server_redis_py_test.py PATH/TO/teksdb-server
(run through tests/server/with_redis_py.sh, which provides redis-py in a venv)
"""

import os
import sys
import tempfile
import threading
import time

import redis

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from server_checks import Checks  # noqa: E402

checks = Checks("server_redis_py")
check = checks.check


def data_types(r):
    r.delete("greeting", "user:1", "scores", "list", "set")
    check(r.set("greeting", "hello") and r.get("greeting") == b"hello", "SET and GET")
    r.hset("user:1", mapping={"name": "ada", "born": "1815"})
    check(r.hgetall("user:1") == {b"name": b"ada", b"born": b"1815"}, "HSET mapping, HGETALL as a dict")
    r.zadd("scores", {"a": 1.5, "b": -2, "c": 10})
    # (RESP3 pairs come back as lists, RESP2's as tuples.)
    pairs = lambda reply: [tuple(p) for p in reply]
    check(pairs(r.zrangebyscore("scores", "-inf", "+inf", withscores=True)) ==
          [(b"b", -2.0), (b"a", 1.5), (b"c", 10.0)], "ZADD, ZRANGEBYSCORE WITHSCORES")
    check(r.zrangebyscore("scores", 0, 100, start=1, num=1) == [b"c"], "ZRANGEBYSCORE with LIMIT")
    r.rpush("list", "x", "y", "z")
    check(r.lrange("list", 0, -1) == [b"x", b"y", b"z"], "RPUSH, LRANGE")
    r.sadd("set", "p", "q")
    check(r.smembers("set") == {b"p", b"q"}, "SADD, SMEMBERS")
    check(r.expire("greeting", 100) and 99 <= r.ttl("greeting") <= 100, "EXPIRE, TTL")
    check(r.zscore("scores", "a") == 1.5 and r.zincrby("scores", 1, "a") == 2.5, "ZSCORE, ZINCRBY as floats")
    check(pairs(r.zrange("scores", 0, 0, withscores=True)) == [(b"b", -2.0)], "ZRANGE WITHSCORES")
    r.set("gd", "v")
    check(r.getdel("gd") == b"v" and r.get("gd") is None, "GETDEL")
    check(r.incrbyfloat("float", 0.5) == 0.5 and r.getex("float", ex=50) == b"0.5" and r.ttl("float") > 0,
          "INCRBYFLOAT, GETEX")
    check(r.rename("float", "float2") and r.get("float2") == b"0.5", "RENAME")
    check(r.unlink("float2") == 1 and r.get("float2") is None, "UNLINK")


def transactions(r):
    r.delete("tx:a", "tx:h", "tx:s", "tx:t", "tx:w")
    pipe = r.pipeline()  # transactional by default: MULTI ... EXEC
    pipe.set("tx:a", 1).incr("tx:a").hset("tx:h", "f", "v").hgetall("tx:h").get("tx:a")
    check(pipe.execute() == [True, 2, 1, {b"f": b"v"}, b"2"], "a default pipeline (MULTI/EXEC)")
    pipe = r.pipeline()
    pipe.set("tx:s", "x").incr("tx:s").set("tx:t", "y")
    results = pipe.execute(raise_on_error=False)
    check(results[0] is True and isinstance(results[1], redis.ResponseError) and results[2] is True,
          "a runtime error fails its command alone")
    r.set("tx:counter", 0)

    def add_one(pipe):
        value = int(pipe.get("tx:counter"))
        pipe.multi()
        pipe.set("tx:counter", value + 1)

    def work():
        for _ in range(100):
            r.transaction(add_one, "tx:counter")
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(r.get("tx:counter") == b"400", f"4 threads x 100 WATCH transactions: {r.get('tx:counter')}")
    with r.pipeline() as pipe:
        pipe.watch("tx:w")
        r.set("tx:w", "changed by another connection")
        pipe.multi()
        pipe.set("tx:w", "mine")
        try:
            pipe.execute()
            check(False, "WATCH aborts EXEC after another connection's write")
        except redis.WatchError:
            check(r.get("tx:w") == b"changed by another connection",
                  "WATCH aborts EXEC after another connection's write (WatchError)")
    r.mset({"tx:x": 0, "tx:y": 0})
    stop = threading.Event()
    torn = []

    def read():
        while not stop.is_set():
            x, y = r.mget("tx:x", "tx:y")
            if x != y:
                torn.append((x, y))
    reader = threading.Thread(target=read)
    reader.start()
    for _ in range(300):
        r.pipeline().incr("tx:x").incr("tx:y").execute()
    stop.set()
    reader.join()
    check(not torn and r.get("tx:x") == b"300", f"no reader sees half a transaction ({torn[:3]})")

def pubsub(r):
    p = r.pubsub()
    p.subscribe("events")
    p.psubscribe("jobs.*")
    confirmations = [p.get_message(timeout=5) for _ in range(2)]
    check([m["type"] for m in confirmations] == ["subscribe", "psubscribe"], "pubsub: subscribed")
    check(r.publish("events", "e1") == 1 and r.publish("jobs.7", "j7") == 1 and r.publish("x", "-") == 0,
          "PUBLISH counts receivers")
    got = [p.get_message(timeout=5) for _ in range(2)]
    check([(m["type"], m["channel"], m["data"]) for m in got] ==
          [("message", b"events", b"e1"), ("pmessage", b"jobs.7", b"j7")],
          f"messages and pattern messages arrive ({got})")
    check(r.pubsub_numsub("events") == [(b"events", 1)] and r.pubsub_numpat() == 1, "PUBSUB NUMSUB, NUMPAT")
    p.close()
    received = []
    p = r.pubsub()
    p.subscribe(**{"handled": lambda m: received.append(m["data"])})
    thread = p.run_in_thread(sleep_time=0.01, daemon=True)
    deadline = time.time() + 5
    while r.pubsub_numsub("handled") != [(b"handled", 1)] and time.time() < deadline:
        time.sleep(0.01)
    for i in range(50):
        r.publish("handled", str(i))
    while len(received) < 50 and time.time() < deadline:
        time.sleep(0.01)
    thread.stop()
    thread.join(timeout=5)
    p.close()
    check(received == [str(i).encode() for i in range(50)], f"a handler thread gets 50 messages in order")


def scripting_and_lock(r):
    lock = r.lock("resource", timeout=5)
    check(lock.acquire(blocking=False) and not r.lock("resource").acquire(blocking=False),
          "Lock (EVALSHA scripts): taken once, refused to a second owner")
    check(lock.extend(2) and lock.owned(), "Lock.extend")
    lock.release()
    check(r.get("resource") is None, "Lock.release")
    r.delete("locked-counter")

    def work():
        for _ in range(50):
            with r.lock("counter-lock", timeout=5, blocking_timeout=10):
                r.set("locked-counter", int(r.get("locked-counter") or 0) + 1)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(r.get("locked-counter") == b"200", "4 threads x 50 increments under Lock: 200")
    script = r.register_script("return {KEYS[1], ARGV[1], redis.call('incrby', KEYS[1], ARGV[1])}")
    r.delete("n")
    check(script(keys=["n"], args=[5]) == [b"n", b"5", 5], "register_script (EVALSHA, then EVAL)")


def admin(r):
    r.config_set("slowlog-log-slower-than", 0)
    r.slowlog_reset()
    r.set("logged", "1")
    entries = r.slowlog_get(5)
    check(any(e["command"] == b"SET logged 1" for e in entries), f"SLOWLOG GET logs commands ({entries[:1]})")
    r.config_set("slowlog-log-slower-than", 10000)
    check(r.config_get("slowlog-log-slower-than") == {"slowlog-log-slower-than": "10000"}, "CONFIG SET/GET")
    port = r.connection_pool.connection_kwargs["port"]
    one = redis.Redis(port=port, db=1, protocol=r.connection_pool.connection_kwargs.get("protocol", 2))
    one.set("in-db-1", "x")
    check(one.get("in-db-1") == b"x" and r.get("in-db-1") is None and r.move("in-db-1", 1) is False,
          "Redis(db=1): its own database")
    one.delete("in-db-1")
    before = r.lastsave()
    check(r.save() and r.lastsave() >= before, "SAVE, LASTSAVE")
    r.delete("copied")
    r.hset("to-copy", mapping={"a": "1", "b": "2"})
    check(r.copy("to-copy", "copied") and r.hgetall("copied") == {b"a": b"1", b"b": b"2"}, "COPY of a hash")
    check(r.randomkey() is not None, "RANDOMKEY")
    r.set("enc-int", 12)
    r.set("enc-short", "hello")
    r.set("enc-long", "x" * 100)
    r.delete("enc-hash", "enc-set", "enc-list")
    r.hset("enc-hash", "f", "v")
    r.sadd("enc-set", 1, 2, 3)
    r.rpush("enc-list", "a")
    encodings = [r.object("encoding", k) for k in ("enc-int", "enc-short", "enc-long", "enc-hash",
                                                   "enc-set", "enc-list")]
    check(encodings == [b"int", b"embstr", b"raw", b"listpack", b"intset", b"quicklist"],
          f"OBJECT ENCODING names Redis's encodings ({encodings})")
    check(r.memory_usage("enc-long") > 100 and r.memory_usage("never-set") is None, "MEMORY USAGE")
    histogram = r.execute_command("LATENCY", "HISTOGRAM", "set")
    check(b"set" in histogram or "set" in histogram, f"LATENCY HISTOGRAM set ({histogram})")
    other = redis.Redis(port=r.connection_pool.connection_kwargs["port"], protocol=2)
    other.client_setname("victim")
    victim = other.client_id()
    check(any(c["name"] == "victim" and int(c["id"]) == victim for c in r.client_list()),
          "CLIENT LIST shows the other connection, named")
    # redis-py 5 and later send CLIENT SETINFO as each connection opens.
    mine = r.client_info()
    check(mine.get("lib-name") == "redis-py" and mine.get("lib-ver") == redis.__version__,
          f"CLIENT INFO shows the library redis-py announced ({mine.get('lib-name')} "
          f"{mine.get('lib-ver')})")
    check(r.client_kill_filter(_id=victim) == 1, "CLIENT KILL ID closes it")
    deadline = time.time() + 5
    while any(c["name"] == "victim" for c in r.client_list()) and time.time() < deadline:
        time.sleep(0.05)
    check(not any(c["name"] == "victim" for c in r.client_list()), "and it is gone from CLIENT LIST")


def pipelines_and_scans(r):
    pipe = r.pipeline(transaction=False)
    for i in range(2500):
        pipe.set(f"scan:{i}", i)
    check(all(pipe.execute()), "a pipeline of 2500 SETs")
    keys = set(r.scan_iter(match="scan:*", count=100))
    check(keys == {f"scan:{i}".encode() for i in range(2500)}, f"scan_iter finds all 2500 keys ({len(keys)})")
    hashes = {k for k in r.scan_iter() if r.type(k) == b"hash"}
    check(b"user:1" in hashes and set(r.scan_iter(_type="hash")) == hashes, "scan_iter by TYPE")
    r.hset("wide", mapping={f"f{i}": str(i) for i in range(300)})
    fields = dict(r.hscan_iter("wide", count=7))
    check(fields == {f"f{i}".encode(): str(i).encode() for i in range(300)}, "hscan_iter finds all 300 fields")
    try:
        r.scan(cursor=12345)
        check(False, "an unknown SCAN cursor is refused")
    except redis.ResponseError as e:
        check("invalid cursor" in str(e), f"an unknown SCAN cursor is refused ({e})")


def info(r):
    stats = r.info("stats")
    check(stats["total_commands_processed"] > 2500 and "instantaneous_ops_per_sec" in stats,
          "INFO stats: commands processed, ops/s")
    check(r.info("memory")["memtable_bytes"] > 0, "INFO memory: memtable bytes")
    latency = r.info("latencystats")
    check("p99" in latency.get("latency_percentiles_usec_set", {}), "INFO latencystats: SET's p99")
    check(r.info("keyspace")["db0"]["keys"] == r.dbsize(), "INFO keyspace agrees with DBSIZE")


def errors(r):
    try:
        r.execute_command("NOSUCHCOMMAND", "x")
        check(False, "an unknown command raises")
    except redis.ResponseError as e:
        check("unknown command" in str(e), "an unknown command raises ResponseError")
    try:
        r.hget("greeting", "f")
        check(False, "WRONGTYPE raises")
    except redis.ResponseError as e:
        check(str(e).startswith("WRONGTYPE"), "HGET on a string raises WRONGTYPE")


def concurrency(r):
    def work():
        for _ in range(300):
            r.hincrby("counters", "hits", 1)
    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(r.hget("counters", "hits") == b"1800", "6 threads x 300 HINCRBY from one pool: 1800")


def expiry(r):
    before = r.info("stats")["expired_keys"]
    pipe = r.pipeline(transaction=False)
    for i in range(200):
        pipe.set(f"short:{i}", "v", px=100)
        pipe.hset(f"shorthash:{i}", mapping={"a": 1, "b": 2})
        pipe.pexpire(f"shorthash:{i}", 100)
    pipe.execute()
    deadline = time.time() + 10
    while time.time() < deadline and r.info("stats")["expired_keys"] - before < 400:
        time.sleep(0.1)
    reclaimed = r.info("stats")["expired_keys"] - before
    check(reclaimed == 400, f"400 expired keys reclaimed in the background ({reclaimed})")
    check(not any(r.scan_iter(match="short*")), "no expired key is listed")


def acl_users(admin, port):
    """An ACL user (keys app:*, reads and writes, nothing dangerous) logs in
    as redis-py does with username= and password=: AUTH user password in
    RESP2, HELLO 3 AUTH in RESP3."""
    admin.acl_setuser("app", enabled=True, passwords=["+app-secret"], keys=["app:*"],
                      commands=["+@read", "+@write", "-@dangerous", "+ping", "+acl|whoami"], reset=True)
    for protocol in (2, 3):
        r = redis.Redis(port=port, protocol=protocol, username="app", password="app-secret")
        check(r.acl_whoami() in ("app", b"app"), f"RESP{protocol}: logged in as an ACL user")
        check(r.set("app:1", "x") and r.get("app:1") == b"x", f"RESP{protocol}: its own keys")
        try:
            r.set("other", "x")
            check(False, f"RESP{protocol}: a key outside its pattern is refused")
        except redis.exceptions.NoPermissionError:
            check(True, f"RESP{protocol}: NoPermissionError for a key outside its pattern")
        try:
            r.flushall()
            check(False, f"RESP{protocol}: FLUSHALL (@dangerous) is refused")
        except redis.exceptions.NoPermissionError:
            check(True, f"RESP{protocol}: NoPermissionError for FLUSHALL")
        try:
            redis.Redis(port=port, protocol=protocol, username="app", password="nope").ping()
            check(False, f"RESP{protocol}: a wrong password is refused")
        except redis.AuthenticationError:
            check(True, f"RESP{protocol}: a wrong password raises AuthenticationError")
    user = admin.acl_getuser("app")
    check(user["keys"] == ["~app:*"] and "on" in user["flags"],
          f"ACL GETUSER as redis-py parses it ({user['keys']}, {user['flags']})")


def main():
    server_bin = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="teksdb-redis-py-")
    port, proc = checks.start_server(server_bin, os.path.join(tmp, "db"))
    try:
        default = redis.Redis(port=port, socket_timeout=30)
        check(default.ping(), "redis-py's defaults connect and PING")
        for protocol in (2, 3):
            r = redis.Redis(port=port, protocol=protocol, socket_timeout=30)
            check(r.connection_pool.get_connection().protocol in (protocol, str(protocol)),
                  f"RESP{protocol} chosen")
            data_types(r)
            transactions(r)
            pubsub(r)
            scripting_and_lock(r)
        for part in (data_types, transactions, pipelines_and_scans, info, concurrency, expiry, errors,
                     admin):
            part(default)
        proc.kill()
        proc.wait()
        _, proc = checks.start_server(server_bin, os.path.join(tmp, "db"), port=port)
        check(default.get("tx:counter") == b"400", "the pool reconnects after a restart; data kept")
    finally:
        proc.kill()
        proc.wait()

    port, proc = checks.start_server(server_bin, os.path.join(tmp, "auth"), "--requirepass", "s3cret")
    try:
        check(redis.Redis(port=port, protocol=2, password="s3cret").ping(), "AUTH with the right password")
        try:
            redis.Redis(port=port, protocol=2, password="wrong").ping()
            check(False, "a wrong password is refused")
        except redis.AuthenticationError:
            check(True, "a wrong password raises AuthenticationError")
        try:
            redis.Redis(port=port, protocol=2).get("x")
            check(False, "no password is refused")
        except redis.AuthenticationError:
            check(True, "no password raises AuthenticationError (NOAUTH)")
        check(redis.Redis(port=port, protocol=3, password="s3cret").ping(),
              "HELLO 3 AUTH with the right password")
        acl_users(redis.Redis(port=port, protocol=2, password="s3cret"), port)
    finally:
        proc.kill()
        proc.wait()
    return checks.finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
