/*
 * The word count on TeksTable against the same word count on Kafka Streams'
 * default memtable (the skip list), through TopologyTestDriver, which runs
 * the topology's real RocksDB stores: the same random lines must give the
 * same counts out and in the store, and the stores must really be what each
 * run asked for (their OPTIONS files name the memtable factory).
 */
package org.teksdb.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WordCountTest {
  @TempDir Path dir;

  /** What one run gave: the output records, the store's contents, its memtable factory. */
  private record Run(List<KeyValue<String, Long>> output, Map<String, Long> store, String memtable) {}

  private static List<String> lines(long seed) {
    final Random random = new Random(seed);
    final List<String> lines = new ArrayList<>();
    for (int i = 0; i < 3000; ++i) {
      final StringBuilder line = new StringBuilder();
      for (int w = random.nextInt(12); w >= 0; --w) {
        // Zipf-like: a few words often, many rarely.
        line.append("w").append((int) (Math.pow(random.nextDouble(), 3) * 5000)).append(' ');
      }
      lines.add(line.toString());
    }
    return lines;
  }

  private Run run(String name, boolean teksTable, List<String> lines) throws Exception {
    final Path stateDir = dir.resolve(name);
    final Properties props = WordCount.settings("unused:9092", stateDir.toString());
    if (!teksTable) props.remove(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG);
    final List<KeyValue<String, Long>> output;
    final Map<String, Long> store = new TreeMap<>();
    try (TopologyTestDriver driver = new TopologyTestDriver(WordCount.topology(), props)) {
      final TestInputTopic<String, String> in =
          driver.createInputTopic(WordCount.INPUT, new StringSerializer(), new StringSerializer());
      final TestOutputTopic<String, Long> out =
          driver.createOutputTopic(WordCount.OUTPUT, new StringDeserializer(), new LongDeserializer());
      for (String line : lines) in.pipeInput(line);
      output = out.readKeyValuesToList();
      final KeyValueStore<String, Long> counts = driver.getKeyValueStore(WordCount.STORE);
      try (KeyValueIterator<String, Long> all = counts.all()) {
        all.forEachRemaining(kv -> store.put(kv.key, kv.value));
      }
      return new Run(output, store, memtableFactory(stateDir));
    }
  }

  // memtable_factory= of the counts store's newest OPTIONS file.
  private static String memtableFactory(Path stateDir) throws Exception {
    try (Stream<Path> files = Files.walk(stateDir)) {
      final Path options = files
          .filter(f -> f.getFileName().toString().startsWith("OPTIONS-")
              && f.getParent().getFileName().toString().equals(WordCount.STORE))
          .sorted().reduce((a, b) -> b)
          .orElseThrow(() -> new AssertionError("no OPTIONS file of store " + WordCount.STORE));
      return Files.readAllLines(options).stream().map(String::trim)
          .filter(line -> line.startsWith("memtable_factory=")).findFirst().orElseThrow();
    }
  }

  @Test
  void countsOnTeksTableAreTheSkipListsCounts() throws Exception {
    final long seed = new Random().nextLong();
    final List<String> lines = lines(seed);
    final Run teks = run("teks", true, lines);
    final Run skipList = run("skip_list", false, lines);
    assertTrue(teks.memtable().contains("TeksTableFactory"), teks.memtable());
    assertTrue(skipList.memtable().contains("SkipListFactory"), skipList.memtable());
    assertTrue(teks.store().size() > 100, "seed " + seed + ": too few words: " + teks.store().size());
    assertEquals(skipList.store(), teks.store(), "seed " + seed + ": the stores");
    assertEquals(skipList.output(), teks.output(), "seed " + seed + ": the output records");
  }
}
