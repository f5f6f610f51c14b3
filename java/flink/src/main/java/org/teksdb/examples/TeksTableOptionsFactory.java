/*
 * TeksTable for Flink's RocksDB state backend (FRocksDB): set
 *
 *   state.backend.type: rocksdb
 *   state.backend.rocksdb.options-factory: org.teksdb.examples.TeksTableOptionsFactory
 *
 * and every keyed state's column family gets a TeksTable memtable. Needs
 * teksdb-java built for FRocksDB (Maven profile frocksdbjni).
 *
 * Thread safety: Flink calls a factory from the task that opens the state
 * backend; this one keeps no state.
 */
package org.teksdb.examples;

import java.util.Collection;
import org.apache.flink.state.rocksdb.RocksDBOptionsFactory;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.teksdb.TeksTableConfig;

public class TeksTableOptionsFactory implements RocksDBOptionsFactory {
  private static final long serialVersionUID = 1L;

  @Override
  public DBOptions createDBOptions(DBOptions current, Collection<AutoCloseable> handlesToClose) {
    return current;
  }

  @Override
  public ColumnFamilyOptions createColumnOptions(
      ColumnFamilyOptions current, Collection<AutoCloseable> handlesToClose) {
    return current.setMemTableConfig(new TeksTableConfig());
  }
}
