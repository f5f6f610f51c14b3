// teksdb-servers through Jedis' JedisSentinelPool: the pool asks the
// Sentinel for the primary, writes and reads through it, and the primary's
// WAIT 1 is answered by the replica. (tests/server/jedis_client_test.sh
// starts the primary, its replica and one Sentinel.)
//
// Usage: java -cp JEDIS_CLASSPATH:. JedisSentinelTest SENTINEL_PORT PRIMARY_PORT MASTER_NAME
import java.util.Collections;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisSentinelPool;

public class JedisSentinelTest {
  private static int failures = 0;

  private static void check(boolean ok, String what) {
    System.out.println((ok ? "ok: " : "FAIL: ") + what);
    if (!ok) failures++;
  }

  public static void main(String[] args) throws Exception {
    int sentinelPort = Integer.parseInt(args[0]);
    int primaryPort = Integer.parseInt(args[1]);
    String name = args[2];
    try (JedisSentinelPool pool = new JedisSentinelPool(name,
             Collections.singleton("127.0.0.1:" + sentinelPort))) {
      HostAndPort master = pool.getCurrentHostMaster();
      check(master.getPort() == primaryPort, "JedisSentinelPool finds the primary (" + master + ")");
      try (Jedis j = pool.getResource()) {
        check("OK".equals(j.set("jedis:sentinel", "pooled")), "SET through the pool");
        check("pooled".equals(j.get("jedis:sentinel")), "GET through the pool");
        check(j.waitReplicas(1, 5000) == 1, "WAIT 1 through the pool: the replica acknowledges");
      }
    }
    System.out.println("jedis_sentinel: " + failures + " failure(s)");
    System.exit(failures == 0 ? 0 : 1);
  }
}
