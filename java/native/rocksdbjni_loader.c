/* The loader of TeksTable's native library for RocksJava (see
 * CMakeLists.txt). It links against no RocksDB, so the JVM can always load
 * it; org.teksdb.TeksTable calls it before it loads libteksdbjni.so.
 *
 * The JVM loads every JNI library with its symbols private to it, and
 * libteksdbjni.so needs RocksDB's: ShareRocksDBSymbols finds the
 * librocksdbjni RocksJava loaded (RocksDB.loadLibrary extracts it as
 * librocksdbjni*.so, or the JVM found librocksdbjni-<platform>.so on its
 * library path) and opens it again, without loading anything, with its
 * symbols global; it refuses when the process holds more than one (RocksJava
 * loaded by several class loaders): TeksTable could not tell which copy its
 * DBs run on, and a copy loaded after another's symbols went global would
 * bind to them. It also tells whether that librocksdbjni has TeksTable
 * built in (then TeksTable loads libteksdbjni_glue.so, without a TeksTable
 * of its own) and which std::string ABI it was built with. BindTeksTable
 * then opens that library with every symbol bound at once, so that a
 * missing one is an error here, with the dynamic linker's message, rather
 * than a crash at its first call; the JVM's System.load of the same file
 * afterwards only registers it. Both handles are kept open on purpose: the
 * libraries stay loaded as long as the process.
 *
 * Thread safety: called under TeksTable.load's lock; dlopen is thread-safe.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jni.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The librocksdbjni files loaded in this process: how many, and their
 * paths ("; "-separated, as much as fits). */
struct Found {
  int count;
  char first[4096];
  char all[8192];
};

static int CollectRocksDBJni(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  const char* name = info->dlpi_name;
  if (name == NULL || name[0] == '\0') return 0;
  const char* base = strrchr(name, '/');
  base = base != NULL ? base + 1 : name;
  if (strncmp(base, "librocksdbjni", strlen("librocksdbjni")) != 0) return 0;
  struct Found* found = data;
  if (found->count++ == 0) snprintf(found->first, sizeof(found->first), "%s", name);
  const size_t used = strlen(found->all);
  snprintf(found->all + used, sizeof(found->all) - used, "%s%s", used > 0 ? "; " : "", name);
  return 0;
}

/* "what: detail" as a Java string. */
static jstring Failure(JNIEnv* env, const char* what, const char* detail) {
  char message[8192 + 256];
  snprintf(message, sizeof(message), "%s: %s", what, detail != NULL ? detail : "(no detail)");
  return (*env)->NewStringUTF(env, message);
}

/* Stores `value` at `array[index]`; false with a Java exception pending if
 * that failed. */
static int Store(JNIEnv* env, jobjectArray array, jsize index, const char* value) {
  jstring s = (*env)->NewStringUTF(env, value);
  if (s == NULL) return 0;
  (*env)->SetObjectArrayElement(env, array, index, s);
  return !(*env)->ExceptionCheck(env);
}

/* Returns NULL once the loaded librocksdbjni's symbols are global, else
 * why not. Writes the path it found to `found[0]`; to `found[1]`
 * "built-in" when that librocksdbjni has TeksTable built in (its plugin's
 * registration function, teksdb_register_plugin), else "absent"; to
 * `found[2]` the std::string ABI its C++ API uses, as the mangled name of
 * a function returning a string tells it: "cxx11", "old" or "unknown". */
JNIEXPORT jstring JNICALL Java_org_teksdb_TeksTable_shareRocksDBSymbols(JNIEnv* env, jclass cls,
                                                                        jobjectArray found_out) {
  (void)cls;
  struct Found found;
  memset(&found, 0, sizeof(found));
  dl_iterate_phdr(CollectRocksDBJni, &found);
  if (found.count == 0) {
    return Failure(env, "no librocksdbjni is loaded in this process",
                   "call org.rocksdb.RocksDB.loadLibrary() first");
  }
  if (found.count > 1) {
    return Failure(env,
                   "more than one librocksdbjni is loaded in this process (RocksJava in several "
                   "class loaders), and TeksTable cannot tell which one its DBs use",
                   found.all);
  }
  if (!Store(env, found_out, 0, found.first)) return NULL;
  void* handle = dlopen(found.first, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  if (handle == NULL) return Failure(env, "could not share librocksdbjni's symbols", dlerror());
  /* RocksDB's C++ API must be visible in it, in namespace rocksdb (a build
   * with hidden symbols, or another ROCKSDB_NAMESPACE, would leave TeksTable
   * nothing to register into). */
  if (dlsym(handle, "_ZN7rocksdb13ObjectLibrary7DefaultEv") == NULL) {
    return Failure(env, "this librocksdbjni does not export RocksDB's C++ API in namespace rocksdb",
                   "rocksdb::ObjectLibrary::Default() not found");
  }
  const int built_in = dlsym(handle, "teksdb_register_plugin") != NULL;
  if (!Store(env, found_out, 1, built_in ? "built-in" : "absent")) return NULL;
  const char* abi = "unknown";
  if (dlsym(handle, "_ZN7rocksdb23GetRocksVersionAsStringB5cxx11Eb") != NULL) {
    abi = "cxx11";
  } else if (dlsym(handle, "_ZN7rocksdb23GetRocksVersionAsStringEb") != NULL) {
    abi = "old";
  }
  Store(env, found_out, 2, abi);
  return NULL; /* with an exception pending if Store failed */
}

/* Returns NULL once the library at `path` (its bytes in the file system's
 * encoding, without a terminating NUL) is loaded with all its symbols
 * bound, else the dynamic linker's message. */
JNIEXPORT jstring JNICALL Java_org_teksdb_TeksTable_bindTeksTable(JNIEnv* env, jclass cls,
                                                                  jbyteArray path) {
  (void)cls;
  const jsize length = (*env)->GetArrayLength(env, path);
  char* file = malloc((size_t)length + 1);
  if (file == NULL) return Failure(env, "could not load TeksTable's native library", "out of memory");
  (*env)->GetByteArrayRegion(env, path, 0, length, (jbyte*)file);
  file[length] = '\0';
  void* handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  free(file);
  if (handle == NULL) return Failure(env, "could not load TeksTable's native library", dlerror());
  return NULL;
}
