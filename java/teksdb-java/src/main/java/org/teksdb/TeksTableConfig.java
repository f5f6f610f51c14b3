/*
 * TeksTableConfig: TeksTable as a RocksJava MemTableConfig, beside
 * SkipListMemTableConfig and HashSkipListMemTableConfig:
 *
 *   options.setMemTableConfig(new TeksTableConfig());
 *
 * Its settings are TeksTableOptions' (include/teksdb/teks_table.h), each
 * passed to RocksDB as the option string "id=teks;async=...;..." that an
 * OPTIONS file or db_bench would name; a value RocksDB refuses is an
 * IllegalArgumentException naming it.
 *
 * Thread safety: a config is a plain value; use one per thread while
 * setting it. The factory it makes is shared by RocksDB as any memtable
 * factory.
 */
package org.teksdb;

import java.util.LinkedHashMap;
import java.util.Map;
import org.rocksdb.MemTableConfig;

public class TeksTableConfig extends MemTableConfig {
  private String variant = "teks";
  // The settings made, in the order made; the rest are the variant's.
  private final Map<String, String> settings = new LinkedHashMap<>();

  /**
   * Starts from one of the paper's variants: "teks" (every mechanism on, the
   * default), "teks-s", "teks-a", "teks-ac", "teks-acsp", "teks-acsp-in";
   * the settings made on this config override the variant's.
   */
  public TeksTableConfig setVariant(String variant) {
    if (variant == null || !variant.matches("[A-Za-z0-9-]+")) {
      throw new IllegalArgumentException("not a TeksTable variant: '" + variant + "'");
    }
    this.variant = variant;
    return this;
  }

  /** Whether new keys are linked into the skip list by a background thread (teks: true). */
  public TeksTableConfig setAsync(boolean async) {
    return set("async", async);
  }

  /** Whether the cuckoo hash takes new keys concurrently, not one at a time (teks: true). */
  public TeksTableConfig setConcurrentHash(boolean concurrentHash) {
    return set("concurrent_hash", concurrentHash);
  }

  /** Whether a seek to a key in the memtable goes straight to it through the hash (teks: true). */
  public TeksTableConfig setShortcut(boolean shortcut) {
    return set("shortcut", shortcut);
  }

  /** Whether an update of a key joins its record's version chain (teks: true). */
  public TeksTableConfig setInplace(boolean inplace) {
    return set("inplace", inplace);
  }

  /** TeksTableOptions::max_wal_write_buffers, an integer >= 1 (4). */
  public TeksTableConfig setMaxWalWriteBuffers(int maxWalWriteBuffers) {
    return set("max_wal_write_buffers", maxWalWriteBuffers);
  }

  /** The nice value of the background linker thread, 0 to 19 (0). */
  public TeksTableConfig setLinkerNice(int linkerNice) {
    return set("linker_nice", linkerNice);
  }

  /** The RocksDB option string this config stands for, "id=teks;..." */
  public String optionString() {
    final StringBuilder options = new StringBuilder("id=").append(variant);
    settings.forEach((name, value) -> options.append(';').append(name).append('=').append(value));
    return options.toString();
  }

  @Override
  protected long newMemTableFactoryHandle() {
    TeksTable.load();
    return newFactory(optionString());
  }

  private TeksTableConfig set(String name, Object value) {
    settings.put(name, String.valueOf(value));
    return this;
  }

  // teksdb_jni.cc: a new MemTableRepFactory* the caller owns.
  private static native long newFactory(String options);
}
