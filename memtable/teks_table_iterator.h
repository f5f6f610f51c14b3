// TeksTableIterator: RocksDB's memtable iterator over a TeksTableRep, in
// internal-key order: records by user key through the skip list, and within
// a record its versions newest first.
//
// Prev inside a record's chain resumes where the last Prev's search left off
// (ReverseFinger), so walking a key's versions backwards costs O(1)
// amortized per step.
//
// Thread safety: one iterator is used by one thread; any number may run
// while writers insert. Each positioning step that moves to another record
// (every Seek*, and Next/Prev past a record's last version) first makes the
// skip list complete up to every record inserted before it: a tailing
// iterator reads at the newest sequence, so, as with the stock skip list,
// it must see keys written before the step.
//
// Design notes: docs/DESIGN.md §2 and §6.
#pragma once

#include <cassert>

#include "key_order.h"
#include "key_record.h"
#include "rocksdb/memtablerep.h"

namespace teksdb {

class TeksTableRep;

class TeksTableIterator : public ROCKSDB_NAMESPACE::MemTableRep::Iterator {
 public:
  TeksTableIterator(TeksTableRep* rep, const KeyOrder& order);

  bool Valid() const override { return version_ != nullptr; }
  // REQUIRES (key, Next, Prev): Valid().
  const char* key() const override {
    assert(Valid());
    return version_->entry();
  }
  void Next() override;
  void Prev() override;
  void Seek(const Slice& internal_key, const char* memtable_key) override;
  void SeekForPrev(const Slice& internal_key, const char* memtable_key) override;
  void SeekToFirst() override;
  void SeekToLast() override;

 private:
  // The shortcut seek (paper §4.4): the record of the target's user key if
  // the hash has it and it is already in the skip list, else the first
  // record with a user key >= it, found through the skip list (from the
  // nearest anchor).
  KeyRecord* SeekRecord(const Slice& target_internal_key) const;
  // Positions at `record`'s newest (oldest) version, or nowhere if null.
  void AtNewestOf(KeyRecord* record);
  void AtOldestOf(KeyRecord* record);

  TeksTableRep* const rep_;
  const KeyOrder& order_;
  KeyRecord* record_ = nullptr;
  Version* version_ = nullptr;
  // For Prev within record_'s chain; cleared whenever record_ changes.
  ReverseFinger finger_;
};

}  // namespace teksdb
