// TeksTableIterator implementation.
#include "teks_table_iterator.h"

#include "teks_table_rep.h"

namespace teksdb {

TeksTableIterator::TeksTableIterator(TeksTableRep* rep, const KeyOrder& order)
    : rep_(rep), order_(order), reading_(rep->reader_epochs()) {}

void TeksTableIterator::AtNewestOf(KeyRecord* record) {
  record_ = record;
  finger_.Clear();
  if (record == nullptr) {
    version_ = nullptr;
    return;
  }
  version_ = record->versions().Newest();
  // Scans move on to the next record; its pointer sits in the cache line
  // just read, so fetching it now hides the next step's miss.
  __builtin_prefetch(record->Next(0));
}

void TeksTableIterator::Next() {
  assert(Valid());
  version_ = version_->older();
  if (version_ != nullptr) {
    // Readers step over older versions one by one (DBIter skips up to
    // max_sequential_skip_in_iterations of them): fetch the next one while
    // the caller looks at this one.
    __builtin_prefetch(version_->older());
    return;
  }
  // A tailing iterator reads at the newest sequence: the next record must be
  // there if its key was written before this step, linked or not yet.
  rep_->WaitUntilLinked();
  AtNewestOf(record_->Next(0));
}

void TeksTableIterator::Prev() {
  assert(Valid());
  // Found by sequence, not by link: `version_` may have been dropped from the
  // chain since we reached it.
  Version* newer = record_->versions().NewerThan(version_, &finger_);
  if (newer != nullptr) {
    version_ = newer;
    return;
  }
  rep_->WaitUntilLinked();
  AtOldestOf(rep_->ordered_index().FindLessThan(record_));
}

void TeksTableIterator::Seek(const Slice& target, const char* memtable_key) {
  const Slice internal_key = TargetOf(target, memtable_key);
  rep_->WaitUntilLinked();
  KeyRecord* record = SeekRecord(internal_key);
  if (record == nullptr || !SameBytes(record->user_key(), UserKeyOf(internal_key))) {
    AtNewestOf(record);
    return;
  }
  record_ = record;
  finger_.Clear();
  version_ = record->FirstAtOrBelow(PackedTagOf(internal_key));
  if (version_ == nullptr) AtNewestOf(record->Next(0));
}

KeyRecord* TeksTableIterator::SeekRecord(const Slice& target_internal_key) const {
  if (rep_->shortcut_seeks()) {
    const CuckooIndex& hash = rep_->cuckoo_index();
    KeyRecord* record =
        hash.FindLive(target_internal_key, hash.Hash(UserKeyOf(target_internal_key)));
    if (record != nullptr && record->linked()) return record;
  }
  return rep_->ordered_index().FindFirstAtOrAfter(target_internal_key);
}

void TeksTableIterator::SeekForPrev(const Slice& target, const char* memtable_key) {
  const Slice internal_key = TargetOf(target, memtable_key);
  Seek(internal_key, nullptr);
  if (!Valid()) SeekToLast();
  while (Valid() && order_.Compare(key(), internal_key) > 0) Prev();
}

void TeksTableIterator::SeekToFirst() {
  rep_->WaitUntilLinked();
  AtNewestOf(rep_->ordered_index().First());
}

void TeksTableIterator::SeekToLast() {
  rep_->WaitUntilLinked();
  AtOldestOf(rep_->ordered_index().Last());
}

void TeksTableIterator::AtOldestOf(KeyRecord* record) {
  record_ = record;
  finger_.Clear();
  version_ = record != nullptr ? record->versions().Oldest() : nullptr;
}

ROCKSDB_NAMESPACE::Status TeksTableIterator::SeekChecked(const Slice& internal_key,
                                                         const EntryChecks& checks) {
  Seek(internal_key, nullptr);
  if (!Valid()) return ROCKSDB_NAMESPACE::Status::OK();
  ROCKSDB_NAMESPACE::Status s = checks.Validate(key());
  if (s.ok() && checks.check_order && order_.Compare(key(), internal_key) < 0) {
    s = ROCKSDB_NAMESPACE::Status::Corruption("TeksTable: a seek landed before its target");
  }
  if (!s.ok()) version_ = nullptr;
  return s;
}

ROCKSDB_NAMESPACE::Status TeksTableIterator::StepChecked(bool forward,
                                                         const EntryChecks& checks) {
  assert(Valid());
  const char* left = key();
  if (forward) {
    Next();
  } else {
    Prev();
  }
  if (!Valid()) return ROCKSDB_NAMESPACE::Status::OK();
  ROCKSDB_NAMESPACE::Status s = checks.Validate(key());
  if (s.ok() && checks.check_order) {
    const int order = order_.Compare(left, key());
    if (forward ? order >= 0 : order <= 0) {
      s = checks.OutOfOrder(forward ? "Next did not move forward" : "Prev did not move backward",
                            left, key());
    }
  }
  if (!s.ok()) version_ = nullptr;
  return s;
}

}  // namespace teksdb
