/*
 * A keyed running count on a local Flink with the RocksDB state backend,
 * once with TeksTableOptionsFactory and once with Flink's defaults (the
 * skip list): the same random words must give the same counts, and each
 * run's RocksDB must really use the memtable it asked for (the OPTIONS
 * files of its state, read when the function opens).
 */
package org.teksdb.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FlinkStateTest {
  @TempDir Path dir;

  /** memtable_factory= lines of the OPTIONS files under each run's local directory. */
  static final ConcurrentHashMap<String, Set<String>> MEMTABLES = new ConcurrentHashMap<>();

  /** Counts each word so far in keyed state; on open, notes its RocksDB's memtable. */
  static final class RunningCount extends RichMapFunction<String, String> {
    private final String run;
    private final String localDir;
    private transient ValueState<Long> count;

    RunningCount(String run, String localDir) {
      this.run = run;
      this.localDir = localDir;
    }

    // The state's column family exists once getState returns, and its
    // OPTIONS file with it (the backend deletes its files before close).
    @Override
    public void open(OpenContext context) throws Exception {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Long.class));
      final Set<String> found = MEMTABLES.computeIfAbsent(run, r -> new TreeSet<>());
      try (Stream<Path> files = Files.walk(Path.of(localDir))) {
        for (Path f : (Iterable<Path>) files::iterator) {
          if (!f.getFileName().toString().startsWith("OPTIONS-")) continue;
          Files.readAllLines(f).stream().map(String::trim)
              .filter(line -> line.startsWith("memtable_factory=")).forEach(found::add);
        }
      }
    }

    @Override
    public String map(String word) throws Exception {
      final long next = (count.value() == null ? 0 : count.value()) + 1;
      count.update(next);
      return word + "=" + next;
    }
  }

  private List<String> run(String name, boolean teksTable, List<String> words) throws Exception {
    final Path localDir = dir.resolve(name);
    Files.createDirectories(localDir);
    final Configuration config = new Configuration();
    config.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
    config.set(RocksDBOptions.LOCAL_DIRECTORIES, localDir.toString());
    if (teksTable) config.set(RocksDBOptions.OPTIONS_FACTORY, TeksTableOptionsFactory.class.getName());
    final StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, config);
    final List<String> out = new ArrayList<>();
    try (CloseableIterator<String> results = env.fromData(words).keyBy(w -> w)
        .map(new RunningCount(name, localDir.toString())).executeAndCollect()) {
      results.forEachRemaining(out::add);
    }
    return out;
  }

  @Test
  void keyedStateOnTeksTableCountsAsOnTheSkipList() throws Exception {
    final long seed = new Random().nextLong();
    final Random random = new Random(seed);
    final List<String> words = new ArrayList<>();
    for (int i = 0; i < 20000; ++i) words.add("w" + (int) (Math.pow(random.nextDouble(), 3) * 3000));
    final List<String> teks = run("teks", true, words);
    final List<String> skipList = run("skip_list", false, words);
    assertEquals(words.size(), teks.size(), "seed " + seed);
    assertEquals(skipList, teks, "seed " + seed + ": the running counts");
    final Set<String> teksMemtables = MEMTABLES.get("teks");
    final Set<String> skipListMemtables = MEMTABLES.get("skip_list");
    assertFalse(teksMemtables.isEmpty(), "no OPTIONS file seen in the TeksTable run");
    assertFalse(skipListMemtables.isEmpty(), "no OPTIONS file seen in the skip list's run");
    assertTrue(teksMemtables.stream().allMatch(l -> l.contains("TeksTableFactory")), teksMemtables.toString());
    assertTrue(skipListMemtables.stream().allMatch(l -> l.contains("SkipListFactory")),
        skipListMemtables.toString());
  }
}
