/* The loader of TeksTable's native library for RocksJava (see
 * CMakeLists.txt). It links against no RocksDB, so the JVM can always load
 * it; org.teksdb.TeksTable calls it before it loads libteksdbjni.so.
 *
 * The JVM loads every JNI library with its symbols private to it, and
 * libteksdbjni.so needs RocksDB's: ShareRocksDBSymbols finds the
 * librocksdbjni RocksJava loaded (RocksDB.loadLibrary extracts it as
 * librocksdbjni*.so, or the JVM found librocksdbjni-<platform>.so on its
 * library path) and opens it again, without loading anything, with its
 * symbols global, and tells whether it has TeksTable built in (then
 * TeksTable loads libteksdbjni_glue.so, without a TeksTable of its own).
 * BindTeksTable then opens that library with every
 * symbol bound at once, so that a missing one is an error here, with the
 * dynamic linker's message, rather than a crash at its first call; the
 * JVM's System.load of the same file afterwards only registers it.
 *
 * Thread safety: called under TeksTable.load's lock; dlopen is thread-safe.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jni.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

struct Found {
  char path[4096];
};

static int FindRocksDBJni(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  const char* name = info->dlpi_name;
  if (name == NULL || name[0] == '\0') return 0;
  const char* base = strrchr(name, '/');
  base = base != NULL ? base + 1 : name;
  if (strncmp(base, "librocksdbjni", strlen("librocksdbjni")) != 0) return 0;
  struct Found* found = data;
  snprintf(found->path, sizeof(found->path), "%s", name);
  return 1;
}

/* "what: detail" as a Java string. */
static jstring Failure(JNIEnv* env, const char* what, const char* detail) {
  char message[4096 + 256];
  snprintf(message, sizeof(message), "%s: %s", what, detail != NULL ? detail : "(no detail)");
  return (*env)->NewStringUTF(env, message);
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
  struct Found found = {{0}};
  if (dl_iterate_phdr(FindRocksDBJni, &found) == 0) {
    return Failure(env, "no librocksdbjni is loaded in this process",
                   "call org.rocksdb.RocksDB.loadLibrary() first");
  }
  jstring path = (*env)->NewStringUTF(env, found.path);
  if (path == NULL) return NULL; /* OutOfMemoryError pending */
  (*env)->SetObjectArrayElement(env, found_out, 0, path);
  void* handle = dlopen(found.path, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  if (handle == NULL) return Failure(env, "could not share librocksdbjni's symbols", dlerror());
  /* RocksDB's C++ API must be visible in it (a build with hidden symbols
   * would leave TeksTable nothing to register into). */
  if (dlsym(handle, "_ZN7rocksdb13ObjectLibrary7DefaultEv") == NULL) {
    return Failure(env, "this librocksdbjni does not export RocksDB's C++ API",
                   "rocksdb::ObjectLibrary::Default() not found");
  }
  const int built_in = dlsym(handle, "teksdb_register_plugin") != NULL;
  jstring teks = (*env)->NewStringUTF(env, built_in ? "built-in" : "absent");
  if (teks == NULL) return NULL;
  (*env)->SetObjectArrayElement(env, found_out, 1, teks);
  const char* abi = "unknown";
  if (dlsym(handle, "_ZN7rocksdb23GetRocksVersionAsStringB5cxx11Eb") != NULL) {
    abi = "cxx11";
  } else if (dlsym(handle, "_ZN7rocksdb23GetRocksVersionAsStringEb") != NULL) {
    abi = "old";
  }
  jstring abi_name = (*env)->NewStringUTF(env, abi);
  if (abi_name == NULL) return NULL;
  (*env)->SetObjectArrayElement(env, found_out, 2, abi_name);
  return NULL;
}

/* Returns NULL once `library` is loaded with all its symbols bound, else
 * the dynamic linker's message. */
JNIEXPORT jstring JNICALL Java_org_teksdb_TeksTable_bindTeksTable(JNIEnv* env, jclass cls,
                                                                  jstring library) {
  (void)cls;
  const char* path = (*env)->GetStringUTFChars(env, library, NULL);
  if (path == NULL) return NULL;
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  (*env)->ReleaseStringUTFChars(env, library, path);
  if (handle == NULL) return Failure(env, "could not load TeksTable's native library", dlerror());
  return NULL;
}
