/*
 * TeksTable for RocksJava: loads TeksTable's native library beside the
 * stock rocksdbjni jar's, so that TeksTableConfig works and "teks" names a
 * memtable in RocksDB option strings and OPTIONS files.
 *
 * The native library (java/native/) is built against the RocksDB release of
 * one rocksdbjni version and binds to that jar's librocksdbjni (or, where
 * that librocksdbjni has TeksTable built in, only its JNI functions): load()
 * refuses any other release with a message, before anything native of
 * TeksTable runs, since the same symbol names over another release's class
 * layouts would crash; so does a librocksdbjni of another std::string ABI
 * (FRocksDB's is the old one), or more than one librocksdbjni in the
 * process. Linux x86-64 only.
 *
 * Thread safety: load() is synchronized and idempotent: it loads once, and
 * once it has failed it throws that failure again; after it returns,
 * everything may be used from any thread.
 */
package org.teksdb;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.rocksdb.RocksDB;

public final class TeksTable {
  private static final String RESOURCES = "/org/teksdb/native/linux-x86_64/";
  private static final String LOADER = "libteksdbjni_loader.so";
  // TeksTable and TeksTableConfig's JNI functions, for the stock jar.
  private static final String LIBRARY = "libteksdbjni.so";
  // TeksTableConfig's JNI functions alone, for a librocksdbjni with
  // TeksTable built in (scripts/build_rocksdb.sh --java).
  private static final String GLUE = "libteksdbjni_glue.so";

  private static boolean loaded;
  private static Throwable failure;
  private static String librocksdbjni;
  private static boolean builtIn;

  private TeksTable() {}

  /**
   * Loads RocksJava's native library (RocksDB.loadLibrary) and TeksTable's,
   * which registers "teks" (and the paper's variants "teks-s", ...,
   * "TeksTableFactory") with RocksDB's ObjectRegistry. Call it before
   * opening a DB whose options name "teks" in a string or an OPTIONS file;
   * TeksTableConfig calls it itself.
   *
   * @throws UnsatisfiedLinkError on a platform other than Linux x86-64, or
   *     when the loaded librocksdbjni cannot take TeksTable (the message
   *     says why)
   * @throws IllegalStateException when the rocksdbjni loaded is of another
   *     RocksDB release or std::string ABI than TeksTable's native library
   *     was built for
   */
  public static synchronized void load() {
    if (loaded) return;
    if (failure == null) {
      try {
        loadOnce();
        loaded = true;
        return;
      } catch (RuntimeException | Error e) {
        failure = e;
        throw e;
      }
    }
    final String earlier = "TeksTable failed to load earlier: " + failure.getMessage();
    if (failure instanceof Error) throw new UnsatisfiedLinkError(earlier);
    throw new IllegalStateException(earlier, failure);
  }

  private static void loadOnce() {
    final String os = System.getProperty("os.name");
    final String arch = System.getProperty("os.arch");
    if (!"Linux".equals(os) || !("amd64".equals(arch) || "x86_64".equals(arch))) {
      throw new UnsatisfiedLinkError(
          "TeksTable's native library is built for Linux x86-64 only, not " + os + " " + arch);
    }
    RocksDB.loadLibrary();
    final String builtFor = builtForRelease();
    final String abi = builtForStringAbi();
    final String running = RocksDB.rocksdbVersion().toString();
    if (!builtFor.equals(running)) {
      throw new IllegalStateException(
          "TeksTable's native library was built for RocksDB " + builtFor
              + " (org.rocksdb:rocksdbjni:" + builtFor + ") but the rocksdbjni loaded is RocksDB "
              + running + ": use rocksdbjni " + builtFor + ", or build teksdb-java with"
              + " -Drocksdb.version=" + running + " (java/native/build.sh)");
    }
    final Path dir = extractLibraries();
    try {
      System.load(dir.resolve(LOADER).toString());
      final String[] found = new String[3];
      String why = shareRocksDBSymbols(found);
      if (why != null) throw new UnsatisfiedLinkError("TeksTable: " + why);
      if (!abi.equals(found[2])) {
        throw new IllegalStateException("TeksTable's native library was built for the " + abi
            + " std::string ABI but " + found[0] + " (RocksDB " + running + ") uses "
            + (found[2].equals("unknown") ? "one it cannot tell (no rocksdb::GetRocksVersionAsString)"
                : "the " + found[2] + " one: build teksdb-java with TEKSDB_STRING_ABI=" + found[2]
                    + " (java/native/build.sh)"));
      }
      final boolean rocksdbHasTeksTable = "built-in".equals(found[1]);
      final Path library = dir.resolve(rocksdbHasTeksTable ? GLUE : LIBRARY);
      why = bindTeksTable(library.toString().getBytes(fileNameCharset()));
      if (why != null) {
        throw new UnsatisfiedLinkError(
            "TeksTable: " + why + " (against " + found[0] + ", RocksDB " + running + ")");
      }
      System.load(library.toString());
      librocksdbjni = found[0];
      builtIn = rocksdbHasTeksTable;
    } finally {
      // Loaded libraries stay mapped once their files are gone.
      for (String name : new String[] {LOADER, LIBRARY, GLUE}) dir.resolve(name).toFile().delete();
      dir.toFile().delete();
    }
  }

  /** The RocksDB release (X.Y.Z) TeksTable's native library was built for. */
  public static String builtForRelease() {
    return nativeBuild("rocksdb.version");
  }

  /** The std::string ABI TeksTable's native library was built for: cxx11 or old. */
  public static String builtForStringAbi() {
    return nativeBuild("string.abi");
  }

  /** The librocksdbjni file TeksTable is bound to, once loaded; else null. */
  public static synchronized String boundLibrary() {
    return librocksdbjni;
  }

  /**
   * Whether the TeksTable in use is the one built into librocksdbjni (a
   * rocksdbjni built with ROCKSDB_PLUGINS=teks) rather than teksdb-java's
   * own; false until loaded.
   */
  public static synchronized boolean builtIntoRocksDB() {
    return builtIn;
  }

  // A property of teksdbjni.properties, which the native build writes.
  private static String nativeBuild(String name) {
    try (InputStream in = TeksTable.class.getResourceAsStream(RESOURCES + "teksdbjni.properties")) {
      if (in == null) {
        throw new UnsatisfiedLinkError(
            "TeksTable: no native library in this jar (" + RESOURCES + " is missing)");
      }
      final Properties properties = new Properties();
      properties.load(in);
      final String value = properties.getProperty(name);
      if (value == null) {
        throw new UnsatisfiedLinkError("TeksTable: teksdbjni.properties has no " + name);
      }
      return value;
    } catch (IOException e) {
      throw new UnsatisfiedLinkError("TeksTable: cannot read teksdbjni.properties: " + e);
    }
  }

  // The encoding the JVM gives file names to the system in.
  private static Charset fileNameCharset() {
    final String name = System.getProperty("sun.jnu.encoding");
    return name != null && Charset.isSupported(name) ? Charset.forName(name) : Charset.defaultCharset();
  }

  // The libraries, copied out of the jar into a new directory (removed
  // once they are loaded).
  private static Path extractLibraries() {
    try {
      final Path dir = Files.createTempDirectory("teksdbjni");
      for (String name : new String[] {LOADER, LIBRARY, GLUE}) {
        try (InputStream in = TeksTable.class.getResourceAsStream(RESOURCES + name)) {
          if (in == null) {
            throw new UnsatisfiedLinkError("TeksTable: " + RESOURCES + name + " is not in the jar");
          }
          Files.copy(in, dir.resolve(name));
        }
      }
      return dir;
    } catch (IOException e) {
      throw new UnsatisfiedLinkError("TeksTable: cannot extract its native library: " + e);
    }
  }

  // libteksdbjni_loader.so (rocksdbjni_loader.c): null on success, else why.
  private static native String shareRocksDBSymbols(String[] found);

  private static native String bindTeksTable(byte[] path);
}
