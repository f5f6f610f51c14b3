/*
 * RocksJava on TeksTable against RocksJava on the skip list (RocksDB's
 * default memtable, the oracle): two DBs take the same random stream of
 * puts, deletes, range deletes, merges, write batches, snapshots taken and
 * released, flushes and reopens, and every read (get at the latest state or
 * a snapshot, MultiGet, iterators forward and backward from seeks, with and
 * without bounds) must answer the same. Keys come from a small space of
 * short binary keys, some prefixes of others, so versions pile up and
 * orders are tested at their edges.
 *
 * The seed also picks TeksTable's configuration (a variant of the paper's,
 * or the linker off). -Dteksdb.seed=N replays a run (the seed is printed
 * first and on a mismatch);
 * -Dteksdb.rounds=N sets the rounds (a reopen between rounds).
 */
package org.teksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.MemTableConfig;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.SkipListMemTableConfig;
import org.rocksdb.Slice;
import org.rocksdb.Snapshot;
import org.rocksdb.StringAppendOperator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

class DifferentialTest {
  private static final int OPERATIONS_PER_ROUND = 4000;
  private static final int MAX_SNAPSHOTS = 6;

  @TempDir Path dir;

  /** One DB and the snapshots taken on it, in the order taken. */
  private static final class Side implements AutoCloseable {
    final Path path;
    final MemTableConfig memtable;
    Options options;
    RocksDB db;
    final List<Snapshot> snapshots = new ArrayList<>();

    Side(Path path, MemTableConfig memtable) throws RocksDBException {
      this.path = path;
      this.memtable = memtable;
      open();
    }

    void open() throws RocksDBException {
      options = new Options().setCreateIfMissing(true).setMergeOperator(new StringAppendOperator())
          .setWriteBufferSize(1 << 20).setDisableAutoCompactions(false);
      options.setMemTableConfig(memtable);
      db = RocksDB.open(options, path.toString());
    }

    @Override
    public void close() {
      for (Snapshot s : snapshots) db.releaseSnapshot(s);
      snapshots.clear();
      db.close();
      options.close();
    }
  }

  @Test
  void teksTableAnswersAsTheSkipList() throws Exception {
    final String seedProperty = System.getProperty("teksdb.seed", "");
    final long seed = seedProperty.isEmpty() ? new Random().nextLong() : Long.parseLong(seedProperty);
    final int rounds = Integer.parseInt(System.getProperty("teksdb.rounds", "6"));
    final Random random = new Random(seed);
    final long[] checked = new long[1];
    // The seed picks TeksTable's configuration too: the paper's variants,
    // and every mechanism on but the background linker.
    final TeksTableConfig[] configs = {new TeksTableConfig(),
        new TeksTableConfig().setVariant("teks-s"), new TeksTableConfig().setVariant("teks-a"),
        new TeksTableConfig().setVariant("teks-ac"), new TeksTableConfig().setVariant("teks-acsp"),
        new TeksTableConfig().setAsync(false)};
    final TeksTableConfig config = configs[random.nextInt(configs.length)];
    // Printed first: a crash or an exception other than a mismatch must
    // still leave the seed to replay.
    System.out.printf("differential: seed %d (replay: -Dteksdb.seed=%d), %d rounds, %s%n", seed,
        seed, rounds, config.optionString());
    try (Side teks = new Side(dir.resolve("teks"), config);
        Side skipList = new Side(dir.resolve("skip_list"), new SkipListMemTableConfig())) {
      assertEquals("TeksTableFactory", teks.options.memTableFactoryName());
      assertEquals("SkipListFactory", skipList.options.memTableFactoryName());
      final Side[] sides = {teks, skipList};
      for (int round = 0; round < rounds; ++round) {
        for (int op = 0; op < OPERATIONS_PER_ROUND; ++op) {
          try {
            step(random, sides, checked);
          } catch (AssertionError e) {
            fail("seed " + seed + " (replay: -Dteksdb.seed=" + seed + "), round " + round
                + ", operation " + op + ": " + e.getMessage(), e);
          }
        }
        for (Side side : sides) {
          side.close();
          side.open();
        }
      }
    }
    assertTrue(checked[0] > 0, "no read was compared (rounds: " + rounds + ")");
    System.out.printf("differential: seed %d, %d rounds, %d reads compared, 0 mismatches%n", seed,
        rounds, checked[0]);
  }

  private static byte[] key(Random random) {
    // 84 keys of 1-3 bytes from a 4-letter alphabet with 0x00 and 0xff:
    // prefixes of each other, and bytes at both ends of the order.
    final byte[] alphabet = {0x00, 'a', 'b', (byte) 0xff};
    final byte[] key = new byte[1 + random.nextInt(3)];
    for (int i = 0; i < key.length; ++i) key[i] = alphabet[random.nextInt(alphabet.length)];
    return key;
  }

  private static byte[] value(Random random) {
    final byte[] value = new byte[random.nextInt(8) == 0 ? 200 + random.nextInt(2000) : random.nextInt(12)];
    random.nextBytes(value);
    return value;
  }

  // Bytes as hex, every byte: answers are compared as these strings.
  private static String hex(byte[] bytes) {
    return bytes == null ? "(none)" : HexFormat.of().formatHex(bytes);
  }

  // An answer for a message: each hex run past 32 digits shortened to its
  // first 16, its length and a hash, so a mismatch reads in a line.
  private static String abbreviate(String answer) {
    return Pattern.compile("[0-9a-f]{33,}").matcher(answer).replaceAll(m -> m.group().substring(0, 16)
        + "..(" + m.group().length() / 2 + " bytes, hash " + Integer.toHexString(m.group().hashCode())
        + ")");
  }

  private static void step(Random random, Side[] sides, long[] checked) throws RocksDBException {
    final int choice = random.nextInt(100);
    if (choice < 30) {
      final byte[] k = key(random);
      final byte[] v = value(random);
      for (Side s : sides) s.db.put(k, v);
    } else if (choice < 40) {
      final byte[] k = key(random);
      for (Side s : sides) s.db.delete(k);
    } else if (choice < 48) {
      final byte[] k = key(random);
      final byte[] v = value(random);
      for (Side s : sides) s.db.merge(k, v);
    } else if (choice < 50) {
      byte[] a = key(random);
      byte[] b = key(random);
      if (Arrays.compareUnsigned(a, b) > 0) {
        final byte[] t = a;
        a = b;
        b = t;
      }
      for (Side s : sides) s.db.deleteRange(a, b);
    } else if (choice < 56) {
      writeBatch(random, sides);
    } else if (choice < 60) {
      for (Side s : sides) {
        if (s.snapshots.size() >= MAX_SNAPSHOTS) continue;
        s.snapshots.add(s.db.getSnapshot());
      }
    } else if (choice < 63) {
      if (sides[0].snapshots.isEmpty()) return;
      final int which = random.nextInt(sides[0].snapshots.size());
      for (Side s : sides) s.db.releaseSnapshot(s.snapshots.remove(which));
    } else if (choice < 64) {
      // One in 500 operations: most reads still find the memtable full.
      if (random.nextInt(5) != 0) return;
      for (Side s : sides) {
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
          s.db.flush(flush);
        }
      }
    } else if (choice < 78) {
      final int snapshot = pickSnapshot(random, sides[0]);
      final byte[] k = key(random);
      final String[] answers = new String[sides.length];
      for (int i = 0; i < sides.length; ++i) {
        try (ReadOptions read = readOptions(sides[i], snapshot)) {
          answers[i] = hex(sides[i].db.get(read, k));
        }
      }
      compare("get " + hex(k) + " at snapshot " + snapshot, answers);
      checked[0]++;
    } else if (choice < 84) {
      final int snapshot = pickSnapshot(random, sides[0]);
      final List<byte[]> keys = new ArrayList<>();
      for (int i = 1 + random.nextInt(16); i > 0; --i) keys.add(key(random));
      final String[] answers = new String[sides.length];
      for (int i = 0; i < sides.length; ++i) {
        try (ReadOptions read = readOptions(sides[i], snapshot)) {
          final StringBuilder all = new StringBuilder();
          for (byte[] v : sides[i].db.multiGetAsList(read, keys)) all.append(hex(v)).append(' ');
          answers[i] = all.toString();
        }
      }
      compare("multiGet at snapshot " + snapshot, answers);
      checked[0]++;
    } else {
      scan(random, sides);
      checked[0]++;
    }
  }

  private static void writeBatch(Random random, Side[] sides) throws RocksDBException {
    final int n = 1 + random.nextInt(20);
    final long batchSeed = random.nextLong();
    for (Side s : sides) {
      final Random same = new Random(batchSeed);
      try (WriteBatch batch = new WriteBatch(); WriteOptions write = new WriteOptions()) {
        for (int i = 0; i < n; ++i) {
          final int kind = same.nextInt(3);
          final byte[] k = key(same);
          if (kind == 0) {
            batch.put(k, value(same));
          } else if (kind == 1) {
            batch.delete(k);
          } else {
            batch.merge(k, value(same));
          }
        }
        s.db.write(write, batch);
      }
    }
  }

  // -1 for the latest state, else an index into the side's snapshots.
  private static int pickSnapshot(Random random, Side side) {
    if (side.snapshots.isEmpty() || random.nextBoolean()) return -1;
    return random.nextInt(side.snapshots.size());
  }

  private static ReadOptions readOptions(Side side, int snapshot) {
    final ReadOptions read = new ReadOptions();
    if (snapshot >= 0) read.setSnapshot(side.snapshots.get(snapshot));
    return read;
  }

  // An iterator from a seek (or an end), a few steps forward or backward,
  // maybe turning once, maybe within bounds.
  private static void scan(Random random, Side[] sides) {
    final int snapshot = pickSnapshot(random, sides[0]);
    final int start = random.nextInt(4);  // seek, seekForPrev, first, last
    final byte[] target = key(random);
    final byte[] lower = random.nextInt(4) == 0 ? key(random) : null;
    final byte[] upper = random.nextInt(4) == 0 ? key(random) : null;
    final int steps = random.nextInt(30);
    final int turnAt = random.nextInt(3) == 0 ? random.nextInt(30) : -1;
    final String[] answers = new String[sides.length];
    for (int i = 0; i < sides.length; ++i) {
      try (ReadOptions read = readOptions(sides[i], snapshot);
          Slice lowerSlice = lower != null ? new Slice(lower) : null;
          Slice upperSlice = upper != null ? new Slice(upper) : null) {
        if (lowerSlice != null) read.setIterateLowerBound(lowerSlice);
        if (upperSlice != null) read.setIterateUpperBound(upperSlice);
        try (RocksIterator it = sides[i].db.newIterator(read)) {
          final StringBuilder seen = new StringBuilder();
          boolean forward = start == 0 || start == 2;
          if (start == 0) {
            it.seek(target);
          } else if (start == 1) {
            it.seekForPrev(target);
          } else if (start == 2) {
            it.seekToFirst();
          } else {
            it.seekToLast();
          }
          for (int step = 0; step < steps && it.isValid(); ++step) {
            seen.append(hex(it.key())).append('=').append(hex(it.value())).append(' ');
            if (step == turnAt) forward = !forward;
            if (forward) {
              it.next();
            } else {
              it.prev();
            }
          }
          try {
            it.status();
          } catch (RocksDBException e) {
            seen.append("status: ").append(e.getMessage());
          }
          answers[i] = seen.toString();
        }
      }
    }
    compare("scan from " + new String[] {"seek", "seekForPrev", "first", "last"}[start] + " "
        + hex(target) + " bounds [" + hex(lower) + ", " + hex(upper) + ") at snapshot " + snapshot,
        answers);
  }

  // answers[0] is TeksTable's, answers[1] the skip list's.
  private static void compare(String what, String[] answers) {
    if (!answers[0].equals(answers[1])) {
      throw new AssertionError(what + ": teks " + abbreviate(answers[0]) + " but skip_list "
          + abbreviate(answers[1]));
    }
  }
}
