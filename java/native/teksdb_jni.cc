// The JNI functions of libteksdbjni.so: what org.teksdb's classes call once
// the library is loaded (see CMakeLists.txt for how it finds RocksDB).
// TeksTable itself registers as "teks" when the library loads
// (memtable/teks_table_factory.cc), into the ObjectLibrary of the
// librocksdbjni it was bound to.
//
// Thread safety: every function may run on any thread at once; none keeps
// state. No C++ exception leaves a function: each becomes a Java exception.
#include <jni.h>

#include <memory>
#include <new>
#include <string>

#include "rocksdb/convenience.h"
#include "rocksdb/memtablerep.h"
#include "teksdb/teks_table.h"

namespace {

// A Java string's modified UTF-8 bytes, released when it goes.
class Utf8Chars {
 public:
  Utf8Chars(JNIEnv* env, jstring s) : env_(env), s_(s), chars_(env->GetStringUTFChars(s, nullptr)) {}
  ~Utf8Chars() {
    if (chars_ != nullptr) env_->ReleaseStringUTFChars(s_, chars_);
  }
  Utf8Chars(const Utf8Chars&) = delete;
  Utf8Chars& operator=(const Utf8Chars&) = delete;
  const char* get() const { return chars_; }

 private:
  JNIEnv* env_;
  jstring s_;
  const char* chars_;
};

void Throw(JNIEnv* env, const char* class_name, const std::string& message) {
  jclass type = env->FindClass(class_name);
  if (type != nullptr) env->ThrowNew(type, message.c_str());
}

}  // namespace

// A new MemTableRepFactory for `joptions`, a RocksDB option string such as
// "id=teks;async=true", owned by the caller: RocksJava's
// ColumnFamilyOptions.setMemTableConfig hands it to a shared_ptr. On a bad
// option string, 0 with IllegalArgumentException (RocksDB's
// InvalidArgument message, naming the option).
extern "C" JNIEXPORT jlong JNICALL Java_org_teksdb_TeksTableConfig_newFactory(JNIEnv* env, jclass,
                                                                            jstring joptions) {
  const Utf8Chars chars(env, joptions);
  if (chars.get() == nullptr) return 0;  // OutOfMemoryError pending
  try {
    const std::string options(chars.get());
    ROCKSDB_NAMESPACE::ConfigOptions config;
    config.ignore_unknown_options = false;
    config.ignore_unsupported_options = false;
    std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRepFactory> factory;
    const ROCKSDB_NAMESPACE::Status s =
        ROCKSDB_NAMESPACE::MemTableRepFactory::CreateFromString(config, options, &factory);
    if (!s.ok()) {
      Throw(env, "java/lang/IllegalArgumentException",
            "TeksTable options '" + options + "': " + s.ToString());
      return 0;
    }
    if (teksdb::GetTeksTableOptions(*factory) == nullptr) {
      Throw(env, "java/lang/IllegalArgumentException",
            "'" + options + "' names " + factory->Name() + ", not TeksTable");
      return 0;
    }
    return reinterpret_cast<jlong>(factory.release());
  } catch (const std::bad_alloc&) {
    Throw(env, "java/lang/OutOfMemoryError", "TeksTable factory");
  } catch (const std::exception& e) {
    Throw(env, "java/lang/IllegalStateException", e.what());
  } catch (...) {
    Throw(env, "java/lang/IllegalStateException", "TeksTable factory: an unknown C++ exception");
  }
  return 0;
}
