/*
 * TeksTable for Kafka Streams' persistent state stores: set
 *
 *   props.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, TeksTableConfigSetter.class);
 *
 * and every RocksDB store of the application (key-value, window, session)
 * gets a TeksTable memtable. Kafka Streams makes one setter per store and
 * calls setConfig before it opens the store.
 *
 * Thread safety: Kafka Streams calls a setter from the stream thread that
 * owns the store; this one keeps no state.
 */
package org.teksdb.examples;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.Options;
import org.teksdb.TeksTableConfig;

public class TeksTableConfigSetter implements RocksDBConfigSetter {
  @Override
  public void setConfig(String storeName, Options options, Map<String, Object> configs) {
    options.setMemTableConfig(new TeksTableConfig());
  }

  @Override
  public void close(String storeName, Options options) {}
}
