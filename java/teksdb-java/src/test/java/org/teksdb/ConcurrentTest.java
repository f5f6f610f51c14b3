/*
 * RocksJava on TeksTable from several threads at once: each thread owns a
 * key prefix and keeps a model (a sorted map) of what it wrote; while the
 * others write theirs and a flusher flushes now and then, every get must
 * give the thread's own latest write, and every scan of its prefix
 * (forward or backward, within bounds) exactly its model's keys and values
 * in order: read-your-own-writes for point and ordered reads while the
 * background linker is still linking others' keys.
 *
 * -Dteksdb.seed=N replays the random choices (thread scheduling aside).
 */
package org.teksdb;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

class ConcurrentTest {
  private static final int THREADS = 4;
  private static final int OPERATIONS_PER_THREAD = 20000;

  @TempDir Path dir;

  @Test
  void eachThreadReadsItsOwnWritesWhileOthersWrite() throws Exception {
    final String seedProperty = System.getProperty("teksdb.seed", "");
    final long seed = seedProperty.isEmpty() ? new Random().nextLong() : Long.parseLong(seedProperty);
    System.out.printf("concurrent: seed %d (replay: -Dteksdb.seed=%d)%n", seed, seed);
    final AtomicLong checked = new AtomicLong();
    try (Options options = new Options().setCreateIfMissing(true).setWriteBufferSize(4 << 20)
            .setAllowConcurrentMemtableWrite(true);
        FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
      options.setMemTableConfig(new TeksTableConfig());
      try (RocksDB db = RocksDB.open(options, dir.toString())) {
        final ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);
        final AtomicBoolean writing = new AtomicBoolean(true);
        final List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; ++t) {
          final int thread = t;
          workers.add(pool.submit(() -> {
            runThread(db, thread, new Random(seed + thread), checked);
            return null;
          }));
        }
        final Future<?> flusher = pool.submit(() -> {
          while (writing.get()) {
            db.flush(flush);
            Thread.sleep(50);
          }
          return null;
        });
        try {
          for (Future<?> w : workers) w.get();
        } catch (java.util.concurrent.ExecutionException e) {
          throw new AssertionError("seed " + seed + ": " + e.getCause().getMessage(), e.getCause());
        } finally {
          writing.set(false);
          flusher.get();
          pool.shutdown();
        }
      }
    }
    assertTrue(checked.get() > 0, "nothing was checked");
    System.out.printf("concurrent: seed %d, %d threads, %d reads checked, 0 mismatches%n", seed,
        THREADS, checked.get());
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void runThread(RocksDB db, int thread, Random random, AtomicLong checked)
      throws Exception {
    final String prefix = "t" + thread + "/";
    final TreeMap<String, byte[]> model = new TreeMap<>();
    for (int op = 0; op < OPERATIONS_PER_THREAD; ++op) {
      final String key = prefix + String.format("%04d", random.nextInt(2000));
      final int choice = random.nextInt(100);
      if (choice < 50) {
        final byte[] value = new byte[random.nextInt(64)];
        random.nextBytes(value);
        db.put(bytes(key), value);
        model.put(key, value);
      } else if (choice < 60) {
        db.delete(bytes(key));
        model.remove(key);
      } else if (choice < 95) {
        final byte[] got = db.get(bytes(key));
        if (!Arrays.equals(got, model.get(key))) {
          throw new AssertionError("thread " + thread + ", op " + op + ": get " + key + " gave "
              + hex(got) + ", its last write " + hex(model.get(key)));
        }
        checked.incrementAndGet();
      } else {
        scan(db, thread, op, prefix, model, random.nextBoolean());
        checked.incrementAndGet();
      }
    }
  }

  // The thread's whole prefix, forward or backward, against its model.
  private static void scan(RocksDB db, int thread, int op, String prefix,
      TreeMap<String, byte[]> model, boolean forward) {
    final List<Map.Entry<String, byte[]>> expected = new ArrayList<>(
        forward ? model.entrySet() : model.descendingMap().entrySet());
    try (Slice lower = new Slice(bytes(prefix));
        Slice upper = new Slice(bytes(prefix.substring(0, prefix.length() - 1) + "0"));
        ReadOptions read = new ReadOptions().setIterateLowerBound(lower).setIterateUpperBound(upper);
        RocksIterator it = db.newIterator(read)) {
      if (forward) {
        it.seekToFirst();
      } else {
        it.seekToLast();
      }
      int i = 0;
      for (; it.isValid(); ++i) {
        final String key = new String(it.key(), StandardCharsets.UTF_8);
        if (i >= expected.size() || !key.equals(expected.get(i).getKey())
            || !Arrays.equals(it.value(), expected.get(i).getValue())) {
          throw new AssertionError("thread " + thread + ", op " + op + ": scan "
              + (forward ? "forward" : "backward") + " entry " + i + " is " + key + "="
              + hex(it.value()) + ", its writes say "
              + (i < expected.size() ? expected.get(i).getKey() + "=" + hex(expected.get(i).getValue())
                  : "(no more)"));
        }
        if (forward) {
          it.next();
        } else {
          it.prev();
        }
      }
      if (i != expected.size()) {
        throw new AssertionError("thread " + thread + ", op " + op + ": scan "
            + (forward ? "forward" : "backward") + " ended after " + i + " of "
            + expected.size() + " keys, at " + (i < expected.size() ? expected.get(i).getKey() : ""));
      }
    }
  }

  private static String hex(byte[] bytes) {
    return bytes == null ? "(none)" : HexFormat.of().formatHex(bytes);
  }
}
