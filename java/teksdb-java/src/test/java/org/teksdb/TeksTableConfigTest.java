/*
 * TeksTableConfig and TeksTable.load() with the stock rocksdbjni jar: a DB
 * opened with TeksTableConfig really runs TeksTable (its OPTIONS file names
 * TeksTableFactory), "teks" works in option strings and OPTIONS files once
 * loaded, and bad settings are refused with a message naming them.
 */
package org.teksdb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.ConfigOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.OptionsUtil;
import org.rocksdb.RocksDB;

class TeksTableConfigTest {
  @TempDir Path dir;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  // The memtable factory named in the newest OPTIONS file of `db`.
  private static String memtableFactoryInOptionsFile(Path db) throws Exception {
    try (Stream<Path> files = Files.list(db)) {
      final Path options = files.filter(f -> f.getFileName().toString().startsWith("OPTIONS-"))
          .sorted().reduce((a, b) -> b).orElseThrow();
      return Files.readAllLines(options).stream().map(String::trim)
          .filter(line -> line.startsWith("memtable_factory=")).findFirst().orElseThrow();
    }
  }

  @Test
  void aDbOpenedWithTeksTableConfigRunsTeksTable() throws Exception {
    final Path db = dir.resolve("db");
    try (Options options = new Options().setCreateIfMissing(true)) {
      options.setMemTableConfig(new TeksTableConfig());
      assertEquals("TeksTableFactory", options.memTableFactoryName());
      try (RocksDB rocks = RocksDB.open(options, db.toString())) {
        rocks.put(bytes("k"), bytes("v"));
        assertArrayEquals(bytes("v"), rocks.get(bytes("k")));
      }
    }
    assertTrue(memtableFactoryInOptionsFile(db).contains("TeksTableFactory"),
        memtableFactoryInOptionsFile(db));
    assertNotNull(TeksTable.boundLibrary());
    // The stock jar gets teksdb-java's TeksTable; a rocksdbjni built with
    // TeksTable inside keeps its own (only the JNI functions are bound).
    assertEquals("rocksdbjni-teks".equals(System.getProperty("teksdb.rocksdbjni")),
        TeksTable.builtIntoRocksDB());
  }

  @Test
  void settingsBecomeTheOptionString() {
    final TeksTableConfig config =
        new TeksTableConfig().setVariant("teks-acsp").setAsync(false).setLinkerNice(5);
    assertEquals("id=teks-acsp;async=false;linker_nice=5", config.optionString());
    try (Options options = new Options()) {
      options.setMemTableConfig(config);
      assertEquals("TeksTableFactory", options.memTableFactoryName());
    }
  }

  @Test
  void badSettingsAreRefusedNamingThem() {
    try (Options options = new Options()) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> options.setMemTableConfig(new TeksTableConfig().setLinkerNice(20)));
      assertTrue(e.getMessage().contains("linker_nice"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> options.setMemTableConfig(new TeksTableConfig().setVariant("teks-x")));
      assertTrue(e.getMessage().contains("teks-x"), e.getMessage());
      // A variant is a name, never more options.
      e = assertThrows(IllegalArgumentException.class,
          () -> new TeksTableConfig().setVariant("teks;async=false"));
      assertTrue(e.getMessage().contains("teks;async=false"), e.getMessage());
    }
  }

  @Test
  void teksNamesAMemtableInOptionStringsAndOptionsFilesOnceLoaded() throws Exception {
    TeksTable.load();
    final Properties properties = new Properties();
    properties.setProperty("memtable_factory", "teks");
    try (ColumnFamilyOptions cf = ColumnFamilyOptions.getColumnFamilyOptionsFromProps(properties)) {
      assertNotNull(cf, "RocksDB refused memtable_factory=teks");
      assertEquals("TeksTableFactory", cf.memTableFactoryName());
    }
    // A DB whose OPTIONS file names TeksTable is loaded with it again.
    final Path db = dir.resolve("db");
    try (Options options = new Options().setCreateIfMissing(true)) {
      options.setMemTableConfig(new TeksTableConfig());
      try (RocksDB rocks = RocksDB.open(options, db.toString())) {
        rocks.put(bytes("a"), bytes("1"));
      }
    }
    try (ConfigOptions config = new ConfigOptions(); DBOptions dbOptions = new DBOptions()) {
      final List<ColumnFamilyDescriptor> families = new ArrayList<>();
      OptionsUtil.loadLatestOptions(config, db.toString(), dbOptions, families);
      assertEquals("TeksTableFactory", families.get(0).getOptions().memTableFactoryName());
    }
  }

  // What TeksTable.load() says in a JVM of its own (one RocksDB copy per
  // process) whose class path puts first `override`, when given: a
  // directory with a teksdbjni.properties of `properties`, a native
  // library built for something else. `args` go to LoadAndReport.
  private String loadInAnotherJvm(String properties, String... args) throws Exception {
    final List<String> classPath = new ArrayList<>();
    if (properties != null) {
      final Path file = dir.resolve("override/org/teksdb/native/linux-x86_64/teksdbjni.properties");
      Files.createDirectories(file.getParent());
      Files.writeString(file, properties);
      classPath.add(dir.resolve("override").toString());
    }
    classPath.add(System.getProperty("java.class.path"));
    final List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        String.join(File.pathSeparator, classPath), LoadAndReport.class.getName()));
    command.addAll(List.of(args));
    final Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    final String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!child.waitFor(60, TimeUnit.SECONDS)) {
      child.destroyForcibly();
      throw new AssertionError("the child JVM did not end in 60 s: " + output);
    }
    assertEquals(0, child.exitValue(), output);
    return output;
  }

  // Another release: refused before anything native of TeksTable runs.
  @Test
  void anotherReleaseIsRefusedWithAMessage() throws Exception {
    final String output = loadInAnotherJvm("rocksdb.version=9.10.0\nstring.abi=cxx11\n");
    assertTrue(output.contains("IllegalStateException") && output.contains("built for RocksDB 9.10.0")
            && output.contains("the rocksdbjni loaded is RocksDB " + RocksDB.rocksdbVersion()),
        output);
  }

  // The right release, the other std::string ABI (the stock jar's is
  // cxx11, FRocksDB's old): refused before TeksTable's library is bound.
  @Test
  void anotherStringAbiIsRefusedWithAMessage() throws Exception {
    TeksTable.load();
    final String other = TeksTable.builtForStringAbi().equals("cxx11") ? "old" : "cxx11";
    final String output = loadInAnotherJvm(
        "rocksdb.version=" + RocksDB.rocksdbVersion() + "\nstring.abi=" + other + "\n");
    assertTrue(output.contains("IllegalStateException")
            && output.contains("built for the " + other + " std::string ABI")
            && output.contains("uses the " + TeksTable.builtForStringAbi() + " one"),
        output);
  }

  // RocksJava loaded twice (a second copy in a class loader of its own):
  // refused, naming both files, before any symbol goes global.
  @Test
  void aSecondRocksJavaInTheProcessIsRefused() throws Exception {
    final String output = loadInAnotherJvm(null, "second-rocksdbjni");
    assertTrue(output.contains("UnsatisfiedLinkError")
            && output.contains("more than one librocksdbjni is loaded in this process"),
        output);
  }

  /**
   * The child JVM of loadInAnotherJvm: prints what load() threw. With
   * "second-rocksdbjni", first loads RocksJava's library a second time,
   * through a class loader of its own.
   */
  static final class LoadAndReport {
    public static void main(String[] args) throws Exception {
      if (args.length > 0 && args[0].equals("second-rocksdbjni")) {
        RocksDB.loadLibrary();
        final URL rocksJava = RocksDB.class.getProtectionDomain().getCodeSource().getLocation();
        final URLClassLoader other =
            new URLClassLoader(new URL[] {rocksJava}, ClassLoader.getPlatformClassLoader());
        other.loadClass("org.rocksdb.RocksDB").getMethod("loadLibrary").invoke(null);
      }
      try {
        TeksTable.load();
        System.out.println("loaded");
      } catch (RuntimeException | UnsatisfiedLinkError e) {
        System.out.println(e);
      }
    }
  }

  @Test
  void theNativeLibraryIsForTheLoadedRelease() {
    TeksTable.load();
    assertEquals(RocksDB.rocksdbVersion().toString(), TeksTable.builtForRelease());
  }
}
