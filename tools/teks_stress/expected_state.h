// ExpectedState: teks_stress's oracle, the state every key of the stressed
// DB should have, kept in a memory-mapped file so that it survives SIGKILL
// of the process that writes it (the kernel keeps a MAP_SHARED page's
// stores; a power loss is out of scope).
//
// Layout: a Header, then for every (column family, key) a History of the
// last kHistory writes to the key, newest first. Each entry says what the
// key held after that write (absent, or the value made from a value base)
// and which write it was: (thread, op number), or kBaseThread for a state
// verified at a reopen (always in). Every write of thread t also writes
// t's op number to a progress key in the same atomic batch, so after a
// crash the progress key P_t says exactly which of t's writes are in the DB
// (those with op number <= P_t), and a key must hold the newest entry of its
// history that is in. Older entries being in while a newer one of the same
// thread is not is a hole, which the check reports.
//
// Protocol for a write (the caller holds the key's lock, so one writer per
// key): Push() the new entry BEFORE the DB write. Push shifts the history
// one word at a time from the oldest end, so a kill in the middle leaves a
// duplicated entry, never a lost or torn one. After the DB write is
// acknowledged, Acknowledge(t, op) records it for the durability check; a
// transaction's successful Prepare is recorded by SetPrepared(t, op) until
// it is committed (cleared after) or rolled back (cleared before).
//
// Thread safety: entries are atomics; a key's history is written only by
// the holder of its lock (teks_stress's KeyLocks) or single-threaded
// during recovery. Header counters are atomics.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace teks_stress {

// One history entry, packed in 64 bits:
//   [63..32] op number  [31..24] thread  [23] exists  [22..0] value base
struct KeyState {
  static constexpr uint32_t kBaseThread = 255;  // verified at a reopen: always in
  static constexpr uint64_t kUnused = ~uint64_t{0};
  static constexpr uint32_t kValueBaseMask = (1u << 23) - 1;

  uint32_t op = 0;
  uint32_t thread = kBaseThread;
  bool exists = false;
  uint32_t value_base = 0;

  uint64_t Pack() const {
    return (uint64_t{op} << 32) | (uint64_t{thread & 0xff} << 24) |
           (uint64_t{exists ? 1u : 0u} << 23) | (value_base & kValueBaseMask);
  }
  static KeyState Unpack(uint64_t word) {
    KeyState s;
    s.op = static_cast<uint32_t>(word >> 32);
    s.thread = static_cast<uint32_t>(word >> 24) & 0xff;
    s.exists = ((word >> 23) & 1) != 0;
    s.value_base = static_cast<uint32_t>(word) & kValueBaseMask;
    return s;
  }
  bool SameValue(const KeyState& other) const {
    return exists == other.exists && (!exists || value_base == other.value_base);
  }
  std::string ToString() const;
};

class ExpectedState {
 public:
  static constexpr int kHistory = 4;
  static constexpr int kMaxThreads = 64;

  struct Header {
    uint64_t magic;
    uint32_t column_families;
    uint32_t keys_per_cf;
    // Bumped after each verified reopen: progress keys of older epochs say
    // nothing about this one's writes.
    std::atomic<uint64_t> epoch;
    // Highest op number each thread has had acknowledged in this epoch.
    std::atomic<uint64_t> acknowledged[kMaxThreads];
    // Each thread's transaction prepared and not yet committed or rolled
    // back, by op number (0: none): recovery must find it prepared or
    // committed where the run promised acknowledged writes survive.
    std::atomic<uint64_t> prepared[kMaxThreads];
    // What the last run promised about acknowledged writes (recovery.h).
    std::atomic<uint64_t> promise;
    // Totals over every run on this oracle, for the crash test's report.
    std::atomic<uint64_t> reopens;
    std::atomic<uint64_t> operations;
    std::atomic<uint64_t> keys_verified;
  };

  ExpectedState() = default;
  ~ExpectedState();
  ExpectedState(const ExpectedState&) = delete;
  ExpectedState& operator=(const ExpectedState&) = delete;

  // Maps `path`, creating it (every key absent) if missing. An existing
  // file must have the same shape; false with *error otherwise.
  bool Open(const std::string& path, uint32_t column_families, uint32_t keys_per_cf,
            bool* created, std::string* error);

  Header& header() { return *header_; }
  uint32_t column_families() const { return header_->column_families; }
  uint32_t keys_per_cf() const { return header_->keys_per_cf; }

  // The newest entry: the key's exact state while its lock is held.
  KeyState Latest(uint32_t cf, uint32_t key) const;
  // The entry `age` writes back (0: the newest). REQUIRES: Used(cf, key, age).
  KeyState At(uint32_t cf, uint32_t key, int age) const;
  // False past the oldest entry recorded since the key's last Reset.
  bool Used(uint32_t cf, uint32_t key, int age) const;
  // REQUIRES: the key's lock (or single-threaded recovery).
  void Push(uint32_t cf, uint32_t key, const KeyState& state);
  // Forgets the history: the key holds `state`, verified (kBaseThread).
  void Reset(uint32_t cf, uint32_t key, const KeyState& state);
  void Acknowledge(uint32_t thread, uint32_t op);
  void SetPrepared(uint32_t thread, uint32_t op);

 private:
  std::atomic<uint64_t>* History(uint32_t cf, uint32_t key) const;

  Header* header_ = nullptr;
  std::atomic<uint64_t>* entries_ = nullptr;
  size_t mapped_bytes_ = 0;
  int fd_ = -1;
};

}  // namespace teks_stress
