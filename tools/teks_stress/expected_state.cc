// ExpectedState's file mapping and history updates (protocol in
// expected_state.h).
#include "expected_state.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace teks_stress {

namespace {
constexpr uint64_t kMagic = 0x54454b5353545232ull;  // "TEKSSTR2"
}  // namespace

std::string KeyState::ToString() const {
  std::string s = exists ? "value base " + std::to_string(value_base) : "absent";
  if (thread == kBaseThread) return s + " (verified at reopen)";
  return s + " (thread " + std::to_string(thread) + " op " + std::to_string(op) + ")";
}

ExpectedState::~ExpectedState() {
  if (header_ != nullptr) munmap(header_, mapped_bytes_);
  if (fd_ >= 0) close(fd_);
}

bool ExpectedState::Open(const std::string& path, uint32_t column_families,
                         uint32_t keys_per_cf, bool* created, std::string* error) {
  const size_t header_bytes = (sizeof(Header) + 63) / 64 * 64;
  const size_t bytes = header_bytes + sizeof(uint64_t) * kHistory *
                                          uint64_t{column_families} * keys_per_cf;
  fd_ = open(path.c_str(), O_RDWR | O_CREAT, 0644);
  if (fd_ < 0) {
    *error = "cannot open " + path + ": " + std::strerror(errno);
    return false;
  }
  struct stat st;
  if (fstat(fd_, &st) != 0) {
    *error = "cannot stat " + path + ": " + std::strerror(errno);
    return false;
  }
  *created = st.st_size == 0;
  if (*created && ftruncate(fd_, static_cast<off_t>(bytes)) != 0) {
    *error = "cannot size " + path + ": " + std::strerror(errno);
    return false;
  }
  if (!*created && static_cast<size_t>(st.st_size) != bytes) {
    *error = path + " has " + std::to_string(st.st_size) + " bytes, this shape needs " +
             std::to_string(bytes) + " (same --column_families and --keys as it was made with?)";
    return false;
  }
  void* map = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (map == MAP_FAILED) {
    *error = "cannot map " + path + ": " + std::strerror(errno);
    return false;
  }
  mapped_bytes_ = bytes;
  header_ = static_cast<Header*>(map);
  entries_ = reinterpret_cast<std::atomic<uint64_t>*>(static_cast<char*>(map) + header_bytes);
  if (*created) {
    // The file is zeros; every key starts absent, verified, with no history.
    header_->column_families = column_families;
    header_->keys_per_cf = keys_per_cf;
    for (uint32_t cf = 0; cf < column_families; ++cf) {
      for (uint32_t key = 0; key < keys_per_cf; ++key) Reset(cf, key, KeyState());
    }
    // Written last: a file without it is an unfinished creation.
    header_->magic = kMagic;
    msync(map, bytes, MS_SYNC);
  } else if (header_->magic != kMagic || header_->column_families != column_families ||
             header_->keys_per_cf != keys_per_cf) {
    *error = path + " is not an oracle of this shape (" + std::to_string(column_families) +
             " column families x " + std::to_string(keys_per_cf) +
             " keys); delete it with the DB to start over";
    return false;
  }
  return true;
}

std::atomic<uint64_t>* ExpectedState::History(uint32_t cf, uint32_t key) const {
  return entries_ + (uint64_t{cf} * header_->keys_per_cf + key) * kHistory;
}

KeyState ExpectedState::Latest(uint32_t cf, uint32_t key) const { return At(cf, key, 0); }

KeyState ExpectedState::At(uint32_t cf, uint32_t key, int age) const {
  return KeyState::Unpack(History(cf, key)[age].load(std::memory_order_acquire));
}

bool ExpectedState::Used(uint32_t cf, uint32_t key, int age) const {
  return History(cf, key)[age].load(std::memory_order_acquire) != KeyState::kUnused;
}

void ExpectedState::Push(uint32_t cf, uint32_t key, const KeyState& state) {
  std::atomic<uint64_t>* h = History(cf, key);
  // Oldest end first: a kill between two stores duplicates an entry.
  for (int i = kHistory - 1; i > 0; --i) {
    h[i].store(h[i - 1].load(std::memory_order_relaxed), std::memory_order_release);
  }
  h[0].store(state.Pack(), std::memory_order_release);
}

void ExpectedState::Reset(uint32_t cf, uint32_t key, const KeyState& state) {
  std::atomic<uint64_t>* h = History(cf, key);
  KeyState base = state;
  base.thread = KeyState::kBaseThread;
  base.op = 0;
  // Newest first: a kill in the middle leaves the verified state newest.
  h[0].store(base.Pack(), std::memory_order_release);
  for (int i = 1; i < kHistory; ++i) h[i].store(KeyState::kUnused, std::memory_order_release);
}

void ExpectedState::Acknowledge(uint32_t thread, uint32_t op) {
  header_->acknowledged[thread].store(op, std::memory_order_release);
}

void ExpectedState::SetPrepared(uint32_t thread, uint32_t op) {
  header_->prepared[thread].store(op, std::memory_order_release);
}

}  // namespace teks_stress
