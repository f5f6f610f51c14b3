/*
 * The YCSB binding for servers that speak the Redis protocol: teksdb-server, and
 * redis-server as a peer. Its data model is that of YCSB's own redis binding (which
 * is not on Maven Central), so both servers do the same work per operation:
 *   - a record is a hash named by its key: insert and update are HMSET, read is
 *     HGETALL (all fields) or HMGET (the fields asked for), delete is DEL;
 *   - every inserted key is also a member of the sorted set "_indices", scored by the
 *     key's String.hashCode(); a scan is ZRANGEBYSCORE _indices <score of the start
 *     key> +inf LIMIT 0 <count>, then one read per key found.
 *
 * Properties: redis.host (127.0.0.1), redis.port (6379), redis.password (none: no
 * AUTH), redis.timeout (ms a reply may take, 10000), redis.connecttimeout (ms a
 * connection may take, 2000). Every wait is bounded, so a dead or stalled server
 * gives errors, never a hang.
 *
 * Threads: YCSB makes one instance per client thread; each owns one connection
 * (a Jedis, not thread-safe, never shared). Instances share only the flag that
 * lets the first failed operation be reported.
 *
 * Failures: init() throws a DBException naming the address, the cause (refused,
 * timed out, wrong or missing password) and the property to check. A failed
 * operation returns Status.ERROR, which YCSB counts as Return=ERROR; the first one
 * is also printed on stderr with its cause. A read of an absent record is
 * Status.NOT_FOUND.
 */
package org.teksdb.ycsb;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicBoolean;

import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

public final class RedisClient extends DB {
  public static final String HOST_PROPERTY = "redis.host";
  public static final String PORT_PROPERTY = "redis.port";
  public static final String PASSWORD_PROPERTY = "redis.password";
  public static final String TIMEOUT_PROPERTY = "redis.timeout";
  public static final String CONNECT_TIMEOUT_PROPERTY = "redis.connecttimeout";

  /** The sorted set of every inserted key, scored by scoreOf(key), that scans walk. */
  public static final String INDEX_KEY = "_indices";

  private static final AtomicBoolean failureReported = new AtomicBoolean();

  private Jedis jedis;
  private String address;

  @Override
  public void init() throws DBException {
    final Properties p = getProperties();
    final String host = p.getProperty(HOST_PROPERTY, "127.0.0.1");
    final int port = intProperty(p, PORT_PROPERTY, 6379);
    address = host + ":" + port;
    final DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
        .connectionTimeoutMillis(intProperty(p, CONNECT_TIMEOUT_PROPERTY, 2000))
        .socketTimeoutMillis(intProperty(p, TIMEOUT_PROPERTY, 10000))
        .clientSetInfoConfig(ClientSetInfoConfig.DISABLED);
    final String password = p.getProperty(PASSWORD_PROPERTY);
    if (password != null) {
      config.password(password);
    }
    try {
      // Connects and sends AUTH at once; the PING proves the server answers commands.
      jedis = new Jedis(new HostAndPort(host, port), config.build());
      jedis.ping();
    } catch (JedisException e) {
      cleanup();
      throw new DBException("redis binding: cannot use the server at " + address + ": "
          + rootMessage(e) + hintFor(e));
    }
  }

  @Override
  public void cleanup() {
    if (jedis != null) {
      jedis.close();
      jedis = null;
    }
  }

  @Override
  public Status read(String table, String key, Set<String> fields,
                     Map<String, ByteIterator> result) {
    try {
      return readRecord(key, fields, result);
    } catch (JedisException e) {
      return failed("read", key, e);
    }
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                     Vector<HashMap<String, ByteIterator>> result) {
    try {
      final List<String> keys =
          jedis.zrangeByScore(INDEX_KEY, scoreOf(startkey), Double.POSITIVE_INFINITY, 0, recordcount);
      for (String key : keys) {
        final HashMap<String, ByteIterator> record = new HashMap<>();
        if (readRecord(key, fields, record) == Status.OK) {
          result.add(record);
        }
      }
      return Status.OK;
    } catch (JedisException e) {
      return failed("scan", startkey, e);
    }
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    try {
      jedis.hmset(key, StringByteIterator.getStringMap(values));
      return Status.OK;
    } catch (JedisException e) {
      return failed("update", key, e);
    }
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    try {
      jedis.hmset(key, StringByteIterator.getStringMap(values));
      jedis.zadd(INDEX_KEY, scoreOf(key), key);
      return Status.OK;
    } catch (JedisException e) {
      return failed("insert", key, e);
    }
  }

  @Override
  public Status delete(String table, String key) {
    try {
      final long removed = jedis.del(key) + jedis.zrem(INDEX_KEY, key);
      return removed > 0 ? Status.OK : Status.NOT_FOUND;
    } catch (JedisException e) {
      return failed("delete", key, e);
    }
  }

  private Status readRecord(String key, Set<String> fields, Map<String, ByteIterator> result) {
    if (fields == null) {
      StringByteIterator.putAllAsByteIterators(result, jedis.hgetAll(key));
    } else {
      final List<String> names = new ArrayList<>(fields);
      final Iterator<String> values = jedis.hmget(key, names.toArray(new String[0])).iterator();
      for (String name : names) {
        final String value = values.next();
        if (value != null) {
          result.put(name, new StringByteIterator(value));
        }
      }
    }
    return result.isEmpty() ? Status.NOT_FOUND : Status.OK;
  }

  private Status failed(String operation, String key, JedisException e) {
    if (failureReported.compareAndSet(false, true)) {
      System.err.println("redis binding: " + operation + " of " + key + " at " + address
          + " failed: " + rootMessage(e) + " (later failures are only counted, as Return=ERROR)");
    }
    return Status.ERROR;
  }

  /** Which properties to check when init() fails with e. */
  private static String hintFor(JedisException e) {
    if (e instanceof JedisConnectionException) {
      return "; is the server running and answering there? (" + HOST_PROPERTY + ", "
          + PORT_PROPERTY + ", " + TIMEOUT_PROPERTY + ")";
    }
    final String message = String.valueOf(e.getMessage());
    return message.startsWith("NOAUTH") || message.startsWith("WRONGPASS") || message.contains("AUTH")
        ? "; check " + PASSWORD_PROPERTY : "";
  }

  /** Where a key sits in _indices: any spread-out function of the key does. */
  private static double scoreOf(String key) {
    return key.hashCode();
  }

  private static int intProperty(Properties p, String name, int fallback) throws DBException {
    final String value = p.getProperty(name);
    if (value == null) {
      return fallback;
    }
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new DBException("redis binding: " + name + " must be an integer, not '" + value + "'");
    }
  }

  /** The exception's message and, where it has one, its innermost cause's (refused, timed out...). */
  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    if (root == e && e.getSuppressed().length > 0) {
      root = e.getSuppressed()[0];  // Jedis keeps each failed address's cause there
    }
    final String message = String.valueOf(e.getMessage());
    return root == e || message.contains(String.valueOf(root.getMessage())) ? message
        : message + " (" + root + ")";
  }
}
