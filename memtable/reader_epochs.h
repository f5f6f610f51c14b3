// ReaderEpochs: when memory that readers of one TeksTableRep may still be
// looking at can be used again (epoch-based reclamation).
//
// Under the TeksDB layer a rep reuses the bytes of versions it cut from
// their chains (version_recycler.h); every rep reuses the bytes of hash
// tables a resize replaced (retired_memory.h), which any lookup of the
// hash, InsertKey's included, may still be scanning: InsertKey holds an
// epoch too. The layer's reader registry says no
// reader can *need* a cut version, but RocksDB also reads memtables the
// layer never sees (transaction validation's GetLatestSequenceForKey, reads
// through GetBaseDB()), and a reader may be standing on a version, or about
// to follow a link to it, when it is cut. So every rep read (Get, MultiGet,
// Contains, an iterator for its whole life) holds an epoch while it looks at
// versions, and memory cut while the epoch was e is reused only once the
// epoch has reached e + 2: by then every reader that entered at e or before
// has left (each step from e to e + 1 waits until no reader of e - 1 is
// left), and every later reader entered after the cut was published, so it
// never reaches the cut versions (their chain no longer links them, and no
// jump above the cut points into them: VersionChain::InsertAndDrop). The
// same holds for a version spliced out between two readers' snapshots.
//
// Readers count themselves in one of kStripes cache lines (chosen by
// thread), in the counter of their epoch's parity, so entering costs one
// read-modify-write on a line other threads seldom touch, and leaving may
// happen on another thread (RocksDB destroys iterators where it likes).
//
// Memory ordering. A cutter tags what it cut with the epoch PublishCuts
// returns, a release read-modify-write of the epoch made after the cuts:
// every later change of the epoch is a read-modify-write too, so a reader
// whose entering load reads a later epoch synchronizes with it and sees
// the cuts (and the jumps cleared with them); a reader that read the tag
// itself, or an earlier epoch, is counted in an epoch the reuse waits out.
// Leaving (release) and advancing (the CAS after acquiring every counter)
// give reuse a happens-before edge from every read of the memory it
// overwrites.
//
// Thread safety: Enter, Leave, current and TryAdvance may run on any
// threads at once.
#pragma once

#include <atomic>
#include <cstdint>

namespace teksdb {

class ReaderEpochs {
 public:
  // What Leave needs to uncount a reader: its stripe and epoch parity.
  struct Ticket {
    uint32_t counter;
  };

  // Counts the calling thread as a reader of the current epoch until Leave.
  Ticket Enter() {
    Stripe& stripe = stripes_[StripeOfThisThread()];
    while (true) {
      const uint64_t epoch = epoch_.load(std::memory_order_seq_cst);
      std::atomic<int64_t>& readers = stripe.readers[epoch & 1];
      readers.fetch_add(1, std::memory_order_seq_cst);
      // Counted in time: the epoch cannot have moved past `epoch` + 1
      // without seeing this count.
      if (epoch_.load(std::memory_order_seq_cst) == epoch) {
        return Ticket{static_cast<uint32_t>((&stripe - stripes_) * 2 + (epoch & 1))};
      }
      readers.fetch_sub(1, std::memory_order_release);
    }
  }
  void Leave(Ticket ticket) {
    stripes_[ticket.counter / 2].readers[ticket.counter % 2].fetch_sub(
        1, std::memory_order_release);
  }

  uint64_t current() const { return epoch_.load(std::memory_order_seq_cst); }

  // The epoch to tag what the caller cut before this call with (see Memory
  // ordering).
  uint64_t PublishCuts() { return epoch_.fetch_add(0, std::memory_order_acq_rel); }

  // Moves the epoch on by one if no reader of the one before the current is
  // left; returns whether the epoch is now past `seen` (it may have been
  // moved by another thread). O(kStripes).
  bool TryAdvance(uint64_t seen) {
    uint64_t epoch = epoch_.load(std::memory_order_seq_cst);
    if (epoch != seen) return epoch > seen;
    const int previous_parity = static_cast<int>((epoch - 1) & 1);
    for (const Stripe& stripe : stripes_) {
      if (stripe.readers[previous_parity].load(std::memory_order_seq_cst) != 0) return false;
    }
    return epoch_.compare_exchange_strong(epoch, epoch + 1, std::memory_order_seq_cst) ||
           epoch > seen;
  }

  // A reader for the life of a scope.
  class Guard {
   public:
    explicit Guard(ReaderEpochs& epochs) : epochs_(epochs), ticket_(epochs.Enter()) {}
    ~Guard() { epochs_.Leave(ticket_); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    ReaderEpochs& epochs_;
    const Ticket ticket_;
  };

 private:
  static constexpr uint32_t kStripes = 32;
  struct alignas(64) Stripe {
    std::atomic<int64_t> readers[2] = {0, 0};
  };
  static uint32_t StripeOfThisThread() {
    static std::atomic<uint32_t> next_thread{0};
    thread_local const uint32_t stripe =
        next_thread.fetch_add(1, std::memory_order_relaxed) % kStripes;
    return stripe;
  }

  // Starts at 2 so that "the one before" is never below zero.
  std::atomic<uint64_t> epoch_{2};
  Stripe stripes_[kStripes];
};

}  // namespace teksdb
