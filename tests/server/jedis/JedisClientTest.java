// teksdb-server through Jedis (Maven Central, the Java client YCSB's binding
// uses), in RESP2 and RESP3: strings and hashes, a pipeline, a transaction
// (MULTI/EXEC) and a WATCH conflict, EVAL and EVALSHA, pub/sub on a second
// connection, SCAN over 500 keys, a BLPOP woken by another connection;
// then as an ACL user (user name and password in the client's config, as
// Jedis sends them: HELLO AUTH in RESP3, AUTH user password in RESP2),
// denied a key outside its pattern.
//
// Usage: java -cp JEDIS_CLASSPATH:. JedisClientTest PORT
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

public class JedisClientTest {
  private static int failures = 0;

  private static void check(boolean ok, String what) {
    System.out.println((ok ? "ok: " : "FAIL: ") + what);
    if (!ok) failures++;
  }

  private static Jedis connect(int port, RedisProtocol protocol) {
    return new Jedis(new HostAndPort("127.0.0.1", port),
        DefaultJedisClientConfig.builder().protocol(protocol).timeoutMillis(10000).build());
  }

  private static void run(int port, RedisProtocol protocol) throws Exception {
    String p = " (" + protocol + ")";
    try (Jedis j = connect(port, protocol); Jedis other = connect(port, protocol)) {
      j.del("greeting", "user", "tx", "w", "queue");
      check("OK".equals(j.set("greeting", "hello")) && "hello".equals(j.get("greeting")), "SET, GET" + p);
      j.hset("user", Map.of("name", "ada", "born", "1815"));
      check(j.hgetAll("user").equals(Map.of("name", "ada", "born", "1815")), "HSET, HGETALL" + p);

      Pipeline pipe = j.pipelined();
      Response<String> set = pipe.set("piped", "1");
      Response<Long> incr = pipe.incr("piped");
      pipe.sync();
      check("OK".equals(set.get()) && incr.get() == 2L, "pipeline" + p);

      Transaction tx = j.multi();
      tx.set("tx", "1");
      tx.incr("tx");
      List<Object> results = tx.exec();
      check(results.size() == 2 && Long.valueOf(2).equals(results.get(1)), "MULTI/EXEC" + p);

      j.watch("w");
      other.set("w", "changed");
      Transaction watched = j.multi();
      watched.set("w", "mine");
      check(watched.exec() == null && "changed".equals(j.get("w")), "WATCH conflict: EXEC null" + p);

      Object evaluated = j.eval("return {KEYS[1], ARGV[1]}", 1, "k", "v");
      check(evaluated instanceof List && ((List<?>) evaluated).size() == 2, "EVAL" + p);
      String sha = j.scriptLoad("return 'loaded'");
      check("loaded".equals(j.evalsha(sha)), "SCRIPT LOAD, EVALSHA" + p);

      List<String> got = Collections.synchronizedList(new ArrayList<>());
      CountDownLatch subscribed = new CountDownLatch(1);
      CountDownLatch received = new CountDownLatch(1);
      JedisPubSub listener = new JedisPubSub() {
        @Override public void onSubscribe(String channel, int count) { subscribed.countDown(); }
        @Override public void onMessage(String channel, String message) {
          got.add(channel + ":" + message);
          received.countDown();
        }
      };
      Thread subscriber = new Thread(() -> {
        try (Jedis s = connect(port, protocol)) { s.subscribe(listener, "news"); }
      });
      subscriber.start();
      subscribed.await(10, TimeUnit.SECONDS);
      check(j.publish("news", "hi") == 1, "PUBLISH" + p);
      received.await(10, TimeUnit.SECONDS);
      listener.unsubscribe();
      subscriber.join(10000);
      check(got.equals(List.of("news:hi")), "SUBSCRIBE receives" + p);

      for (int i = 0; i < 500; i++) j.set("scan:" + i, "x");
      int found = 0;
      String cursor = ScanParams.SCAN_POINTER_START;
      do {
        ScanResult<String> page = j.scan(cursor, new ScanParams().match("scan:*").count(50));
        found += page.getResult().size();
        cursor = page.getCursor();
      } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
      check(found == 500, "SCAN finds 500 keys (" + found + ")" + p);

      Thread pusher = new Thread(() -> {
        try (Jedis q = connect(port, protocol)) {
          Thread.sleep(200);
          q.lpush("queue", "job");
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      pusher.start();
      List<String> popped = other.blpop(5, "queue");
      pusher.join();
      check(List.of("queue", "job").equals(popped), "BLPOP woken by LPUSH" + p);
    }
  }

  // An application user: app:* keys, reads and writes, nothing dangerous.
  private static void asUser(int port, RedisProtocol protocol) {
    String p = " (" + protocol + ")";
    try (Jedis admin = connect(port, protocol)) {
      admin.aclSetUser("app", "reset", "on", ">app-secret", "~app:*", "+@read", "+@write",
          "-@dangerous", "+ping", "+acl|whoami");
    }
    try (Jedis j = new Jedis(new HostAndPort("127.0.0.1", port),
        DefaultJedisClientConfig.builder().protocol(protocol).user("app").password("app-secret")
            .timeoutMillis(10000).build())) {
      check("app".equals(j.aclWhoAmI()), "logged in as an ACL user" + p);
      check("OK".equals(j.set("app:1", "x")) && "x".equals(j.get("app:1")), "its own keys" + p);
      try {
        j.set("other", "x");
        check(false, "a key outside its pattern is refused" + p);
      } catch (JedisDataException e) {
        check(e.getMessage().startsWith("NOPERM"), "NOPERM for a key outside its pattern" + p);
      }
    }
    try (Jedis wrong = new Jedis(new HostAndPort("127.0.0.1", port),
        DefaultJedisClientConfig.builder().protocol(protocol).user("app").password("nope")
            .timeoutMillis(10000).build())) {
      wrong.ping();
      check(false, "a wrong password is refused" + p);
    } catch (JedisDataException e) {
      check(e.getMessage().startsWith("WRONGPASS"), "WRONGPASS for a wrong password" + p);
    }
  }

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    run(port, RedisProtocol.RESP2);
    run(port, RedisProtocol.RESP3);
    asUser(port, RedisProtocol.RESP2);
    asUser(port, RedisProtocol.RESP3);
    System.out.println("jedis: " + failures + " failure(s)");
    System.exit(failures == 0 ? 0 : 1);
  }
}
