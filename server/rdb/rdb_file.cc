// The RDB file reader of rdb_file.h.
#include "rdb_file.h"

#include "printable_text.h"
#include "rdb_payload.h"
#include "rdb_value.h"

namespace teksdb::server {
namespace {

// rdb.h's opcodes.
constexpr uint8_t kFunction2 = 245, kFunction = 246, kModuleAux = 247, kIdle = 248, kFreq = 249,
                  kAux = 250, kResizeDb = 251, kExpireTimeMs = 252, kExpireTime = 253,
                  kSelectDb = 254, kEof = 255;
constexpr std::string_view kMagic = "REDIS";
// The first RDB version with a checksum after the end opcode.
constexpr int kFirstChecksummedVersion = 5;

}  // namespace

bool RdbFile::Start() {
  if (bytes_.size() < 9 || bytes_.substr(0, kMagic.size()) != kMagic) {
    error_ = "not an RDB file (no REDIS header)";
    return false;
  }
  version_ = 0;
  for (size_t i = 5; i < 9; ++i) {
    if (bytes_[i] < '0' || bytes_[i] > '9') {
      error_ = "not an RDB file (a damaged version)";
      return false;
    }
    version_ = version_ * 10 + (bytes_[i] - '0');
  }
  if (version_ < 1 || version_ > rdb_payload::kNewestRdbVersion) {
    error_ = "RDB version " + std::to_string(version_) + " is not one Redis 7.4 reads (1 to " +
             std::to_string(rdb_payload::kNewestRdbVersion) + ")";
    return false;
  }
  // The checksum first, so that a damaged file is refused before any of it
  // is used (0: written with rdbchecksum no).
  if (version_ >= kFirstChecksummedVersion) {
    size_t pos = bytes_.size() - 8;
    uint64_t checksum;
    if (bytes_.size() < 9 + 1 + 8 || !rdb_payload::ReadLittleEndian(bytes_, &pos, 8, &checksum) ||
        (checksum != 0 && checksum != rdb_payload::Crc64(0, bytes_.substr(0, bytes_.size() - 8)))) {
      error_ = "the file's checksum is wrong (damaged or cut short)";
      return false;
    }
  }
  pos_ = 9;
  return true;
}

RdbFile::Item RdbFile::Fail(const std::string& what) {
  error_ = what + " at byte " + std::to_string(pos_);
  return Item::kError;
}

RdbFile::Item RdbFile::Next(Entry* entry) {
  int64_t expire_ms = 0;
  for (;;) {
    const size_t opcode_at = pos_;
    uint8_t type;
    if (!rdb_payload::ReadByte(bytes_, &pos_, &type)) return Fail("the file ends before its end opcode");
    uint64_t n, m;
    std::string s, t;
    switch (type) {
      case kEof:
        // What follows is the checksum Start checked, and nothing else.
        if (bytes_.size() - pos_ != (version_ >= kFirstChecksummedVersion ? 8u : 0u)) {
          return Fail("bytes after the end opcode");
        }
        pos_ = bytes_.size();
        return Item::kEnd;
      case kSelectDb:
        if (!rdb_payload::ReadLength(bytes_, &pos_, &n) || n > INT32_MAX) {
          return Fail("a damaged database number");
        }
        db_ = static_cast<int>(n);
        continue;
      case kExpireTime:
        if (!rdb_payload::ReadLittleEndian(bytes_, &pos_, 4, &n)) return Fail("a damaged expire time");
        expire_ms = static_cast<int64_t>(static_cast<int32_t>(n)) * 1000;
        continue;
      case kExpireTimeMs:
        if (!rdb_payload::ReadLittleEndian(bytes_, &pos_, 8, &n)) return Fail("a damaged expire time");
        expire_ms = static_cast<int64_t>(n);
        continue;
      case kResizeDb:
        if (!rdb_payload::ReadLength(bytes_, &pos_, &n) || !rdb_payload::ReadLength(bytes_, &pos_, &m)) {
          return Fail("a damaged RESIZEDB");
        }
        continue;
      case kAux:
        if (!rdb_payload::ReadString(bytes_, &pos_, &s) || !rdb_payload::ReadString(bytes_, &pos_, &t)) {
          return Fail("a damaged auxiliary field");
        }
        continue;
      case kIdle:
        if (!rdb_payload::ReadLength(bytes_, &pos_, &n)) return Fail("a damaged idle time");
        continue;
      case kFreq: {
        uint8_t freq;
        if (!rdb_payload::ReadByte(bytes_, &pos_, &freq)) return Fail("a damaged frequency");
        continue;
      }
      case kModuleAux:
        pos_ = opcode_at;
        return Fail("module data cannot be loaded (no modules)");
      case kFunction:
        pos_ = opcode_at;
        return Fail("functions of Redis 7.0's release candidates cannot be loaded");
      case kFunction2:
        if (!rdb_payload::ReadString(bytes_, &pos_, &entry->function_code)) {
          return Fail("a damaged function library");
        }
        entry->db = db_;
        return Item::kFunction;
      default: {
        entry->db = db_;
        entry->expire_ms = expire_ms;
        if (!rdb_payload::ReadString(bytes_, &pos_, &entry->key)) return Fail("a damaged key name");
        std::string error;
        const size_t value_at = pos_;
        if (!rdb_value::Read(type, bytes_, &pos_, &entry->value, &error)) {
          pos_ = value_at;
          return Fail("key '" + PrintableText(entry->key) + "': " + error);
        }
        return Item::kKey;
      }
    }
  }
}

}  // namespace teksdb::server
