/*
 * TeksTable beside the skip list from Java: RocksJava's get, put, seek and
 * MultiGet on a DB whose keys (1M by default, 16-byte keys, 100-byte
 * values) all sit in one memtable, the memtable the only thing that
 * differs (@Param memtable). What a Java program pays per call is JNI's
 * crossing and RocksDB's read path around the memtable as well as the
 * memtable itself: the ratio shows how much of TeksTable's gain in C++
 * reaches Java.
 *
 * Thread safety: one benchmark thread per trial (JMH's default); the DB is
 * the trial's own.
 */
package org.teksdb.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;
import org.rocksdb.MemTableConfig;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.SkipListMemTableConfig;
import org.rocksdb.WriteOptions;
import org.teksdb.TeksTable;
import org.teksdb.TeksTableConfig;

@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MemtableBenchmark {
  static final int VALUE_BYTES = 100;
  static final int MULTIGET_BATCH = 32;

  @Param({"teks", "skip_list"})
  public String memtable;

  @Param({"1000000"})
  public int keys;

  private Path dir;
  private Options options;
  private RocksDB db;
  private WriteOptions write;
  private ReadOptions read;
  private RocksIterator iterator;
  private final SplittableRandom random = new SplittableRandom(42);
  private final byte[] value = new byte[VALUE_BYTES];
  private final byte[] valueOut = new byte[VALUE_BYTES];

  // Every key made once, so that a benchmark times RocksDB, not formatting.
  private byte[][] keyBytes;

  private byte[] randomKey() {
    return keyBytes[random.nextInt(keys)];
  }

  @Setup(Level.Trial)
  public void open() throws RocksDBException, IOException {
    RocksDB.loadLibrary();
    final MemTableConfig config =
        memtable.equals("teks") ? new TeksTableConfig() : new SkipListMemTableConfig();
    dir = Files.createTempDirectory("teksdb-jmh");
    // A write buffer that holds every key and every benchmark's puts: all
    // reads are memtable reads.
    options = new Options().setCreateIfMissing(true).setWriteBufferSize(4L << 30)
        .setMaxWriteBufferNumber(2).setDisableAutoCompactions(true);
    options.setMemTableConfig(config);
    db = RocksDB.open(options, dir.toString());
    // scripts/bench_java.sh says which TeksTable it built for.
    final String expectBuiltIn = System.getProperty("teksdb.expect.builtin");
    if (config instanceof TeksTableConfig && expectBuiltIn != null
        && Boolean.parseBoolean(expectBuiltIn) != TeksTable.builtIntoRocksDB()) {
      throw new IllegalStateException("TeksTable built into librocksdbjni: "
          + TeksTable.builtIntoRocksDB() + ", expected " + expectBuiltIn);
    }
    write = new WriteOptions().setDisableWAL(true);
    read = new ReadOptions();
    keyBytes = new byte[keys][];
    final List<Integer> order = new ArrayList<>(keys);
    for (int i = 0; i < keys; ++i) {
      keyBytes[i] = String.format("key%013d", i).getBytes(StandardCharsets.US_ASCII);
      order.add(i);
    }
    // Keys in a random order, as db_bench's fillrandom.
    Collections.shuffle(order, new Random(1));
    random.nextBytes(value);
    for (int i : order) db.put(write, keyBytes[i], value);
    iterator = db.newIterator(read);
  }

  @TearDown(Level.Trial)
  public void close() throws IOException {
    iterator.close();
    db.close();
    options.close();
    write.close();
    read.close();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }

  /** RocksDB.get of a present key into a buffer (no value array made per call). */
  @Benchmark
  public int get() throws RocksDBException {
    return db.get(read, randomKey(), valueOut);
  }

  /** RocksDB.put overwriting a present key, WAL off. */
  @Benchmark
  public void put() throws RocksDBException {
    db.put(write, randomKey(), value);
  }

  /** An iterator's seek to a present key and a read of the key it lands on. */
  @Benchmark
  public void seek(Blackhole blackhole) {
    iterator.seek(randomKey());
    blackhole.consume(iterator.key());
  }

  /** RocksDB.multiGetAsList of 32 present keys; the time is per key. */
  @Benchmark
  @OperationsPerInvocation(MULTIGET_BATCH)
  public void multiGet(Blackhole blackhole) throws RocksDBException {
    final List<byte[]> batch = new ArrayList<>(MULTIGET_BATCH);
    for (int i = 0; i < MULTIGET_BATCH; ++i) batch.add(randomKey());
    blackhole.consume(db.multiGetAsList(read, batch));
  }
}
