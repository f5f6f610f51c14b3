// TeksTableIterator: RocksDB's memtable iterator over a TeksTableRep, in
// internal-key order: records by user key through the skip list, and within
// a record its versions newest first.
//
// Prev inside a record's chain resumes where the last Prev's search left off
// (ReverseFinger), so walking a key's versions backwards costs O(1)
// amortized per step.
//
// Thread safety: one iterator is used by one thread (and may be destroyed
// by another); any number may run while writers insert. Each positioning
// step that moves to another record (every Seek*, and Next/Prev past a
// record's last version) first makes the skip list complete up to every
// record inserted before it: a tailing iterator reads at the newest
// sequence, so, as with the stock skip list, it must see keys written
// before the step.
//
// Design notes: docs/DESIGN.md §2 and §6.
#pragma once

#include <cassert>

#include "entry_checks.h"
#include "key_order.h"
#include "key_record.h"
#include "reader_epochs.h"
#include "rocksdb/memtablerep.h"
#include "teksdb/rocksdb_version.h"

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

  // RocksDB's paranoid iterator steps, as the release built against
  // declares them (rocksdb_version.h), forwarding to the checked steps below.
#if TEKSDB_ROCKSDB_HAS_VALIDATING_READS
  ROCKSDB_NAMESPACE::Status NextAndValidate(bool allow_data_in_errors) override {
    return StepChecked(/*forward=*/true, {allow_data_in_errors, true, nullptr});
  }
  ROCKSDB_NAMESPACE::Status PrevAndValidate(bool allow_data_in_errors) override {
    return StepChecked(/*forward=*/false, {allow_data_in_errors, true, nullptr});
  }
#if TEKSDB_ROCKSDB_VALIDATION_TAKES_CALLBACK
  ROCKSDB_NAMESPACE::Status SeekAndValidate(
      const Slice& internal_key, const char* memtable_key, bool allow_data_in_errors,
      bool detect_key_out_of_order, const EntryChecks::Validator& key_validation_callback) override {
    return SeekChecked(TargetOf(internal_key, memtable_key),
                       {allow_data_in_errors, detect_key_out_of_order, &key_validation_callback});
  }
#else
  ROCKSDB_NAMESPACE::Status SeekAndValidate(const Slice& internal_key, const char* memtable_key,
                                            bool allow_data_in_errors) override {
    return SeekChecked(TargetOf(internal_key, memtable_key), {allow_data_in_errors, true, nullptr});
  }
#endif
#endif

  // Seek, then `checks` on the entry it lands at (which must not sort
  // before `internal_key`). Next or Prev, then `checks` on the entry it
  // moves to (which must sort strictly after, or before, the one it left).
  // A failed check leaves the iterator invalid and is returned.
  ROCKSDB_NAMESPACE::Status SeekChecked(const Slice& internal_key, const EntryChecks& checks);
  // REQUIRES: Valid().
  ROCKSDB_NAMESPACE::Status StepChecked(bool forward, const EntryChecks& checks);

  // The internal key a seek is for: `internal_key`, or, when RocksDB passes
  // only the memtable key (MemTableRep::MultiGet's default does), the
  // internal key inside it.
  static Slice TargetOf(const Slice& internal_key, const char* memtable_key) {
    if (internal_key.empty() && memtable_key != nullptr) {
      return EntryView::Decode(memtable_key).internal_key;
    }
    return internal_key;
  }

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
  // Held for the iterator's life: it may stand on, or pin, versions that
  // are cut meanwhile (reader_epochs.h).
  ReaderEpochs::Guard reading_;
  KeyRecord* record_ = nullptr;
  Version* version_ = nullptr;
  // For Prev within record_'s chain; cleared whenever record_ changes.
  ReverseFinger finger_;
};

}  // namespace teksdb
