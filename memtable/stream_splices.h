// StreamSplices: the skip-list positions (OrderedIndex::Splice) of the last
// few streams of keys in order that one linking thread met, so that records
// of several such streams, interleaved, each link in O(1).
//
// One splice serves keys that arrive in order. Writers often interleave
// streams: teksdb-server's pipelined HSETs write a meta record (keys in
// random order), an owner record ("O" and a version that only grows) and
// fields under that version, one after the other; through one splice each
// breaks the others' position, and three of a new hash's seven records
// needed a full search. For each record, For() picks the last splice used
// if the record lands in its gap on level 0 or kNearLevel (keys in order,
// or nearly: a few records away); else the splice whose level-0 gap it
// lands in; else the least recently used one, emptied, so the insert
// searches from the skip list's anchors and sets it. So a
// stream in random order takes over one splice and leaves the ordered
// streams theirs, at no more than 2 * (kStreams + 1) comparisons a record.
//
// Thread safety: none; the LinkQueue lends it to one linking thread at a
// time (under its splice mutex).
#pragma once

#include <cstdint>

#include "ordered_index.h"

namespace teksdb {

class StreamSplices {
 public:
  static constexpr int kStreams = 4;
  // A gap on this level spans about 4^kNearLevel records (RocksDB's
  // branching factor of 4).
  static constexpr int kNearLevel = 2;

  // The splice to insert `record` through (REQUIRES: every splice here was
  // only ever used with `index`).
  OrderedIndex::Splice* For(const OrderedIndex& index, const KeyRecord* record) {
    int last = 0, least = 0;
    for (int i = 1; i < kStreams; ++i) {
      if (last_used_[i] > last_used_[last]) last = i;
      if (last_used_[i] < last_used_[least]) least = i;
    }
    int chosen = -1;
    if (index.LandsInGap(splices_[last], record, 0) ||
        index.LandsInGap(splices_[last], record, kNearLevel)) {
      chosen = last;
    }
    for (int i = 0; i < kStreams && chosen < 0; ++i) {
      if (i != last && index.LandsInGap(splices_[i], record, 0)) chosen = i;
    }
    if (chosen < 0) {
      // Far from every splice: a climb through this one's wider gaps would
      // cost more than a search from the anchors, which refills it.
      chosen = least;
      splices_[chosen].valid = 0;
    }
    last_used_[chosen] = ++clock_;
    return &splices_[chosen];
  }

 private:
  OrderedIndex::Splice splices_[kStreams];
  uint64_t last_used_[kStreams] = {};
  uint64_t clock_ = 0;
};

}  // namespace teksdb
