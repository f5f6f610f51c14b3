/*
 * Kafka Streams' word count with its counts in a RocksDB store on
 * TeksTable: lines from the topic "lines", counts of each word to
 * "word-counts", the store "counts" queryable.
 *
 *   java -cp ... org.teksdb.examples.WordCount BOOTSTRAP_SERVERS [STATE_DIR]
 *
 * Thread safety: Kafka Streams' own.
 */
package org.teksdb.examples;

import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;

public final class WordCount {
  public static final String INPUT = "lines";
  public static final String OUTPUT = "word-counts";
  public static final String STORE = "counts";

  private WordCount() {}

  /** The word count's topology. */
  public static Topology topology() {
    final StreamsBuilder builder = new StreamsBuilder();
    builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()))
        .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split("\\W+")))
        .filter((key, word) -> !word.isEmpty())
        .groupBy((key, word) -> word)
        .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as(STORE))
        .toStream()
        .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
    return builder.build();
  }

  /** The application's settings, its stores on TeksTable. */
  public static Properties settings(String bootstrapServers, String stateDir) {
    final Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "teksdb-word-count");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    props.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, TeksTableConfigSetter.class);
    return props;
  }

  public static void main(String[] args) {
    if (args.length < 1) {
      System.err.println("usage: WordCount BOOTSTRAP_SERVERS [STATE_DIR]");
      System.exit(2);
    }
    final String stateDir = args.length > 1 ? args[1] : "/tmp/teksdb-word-count";
    final KafkaStreams streams = new KafkaStreams(topology(), settings(args[0], stateDir));
    Runtime.getRuntime().addShutdownHook(new Thread(streams::close));
    streams.start();
  }
}
