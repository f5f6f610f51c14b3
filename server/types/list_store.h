// ListStore: how a list is stored, and the reads and writes its commands
// share (list_commands.cc, list_edit_commands.cc, list_move_commands.cc).
//
// A list is a meta record (type 'l'; its version; payload: element count,
// then the index of the first element, 8 bytes big-endian each) and one
// record per element under the list's version, named by its index biased
// by 2^63 and written big-endian, so elements sort in list order: a push
// on the left writes below the first index, on the right above the last;
// a range is a seek and a scan, an index one read. Edits in the middle
// (LINSERT, LREM) rewrite the list under a new version (O(n), as in
// Redis); the old version's records go with compactions.
//
// Thread safety: writers hold the key's lock. Reads take no lock: one that
// misses an element the count promised checks that the list was not
// replaced under it (StillHolds), and runs again if it was.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "request.h"

namespace teksdb::server {

struct ListMeta {
  int64_t count = 0;
  int64_t first = 0;  // index of the first element
  int64_t expire_ms = 0;
  uint64_t version = 0;
};

// An element's member name: its index, biased and big-endian.
std::string ListElement(int64_t index);
Keyspace::Value EncodeList(const ListMeta& m);

// Reads list `key`: false (having replied) on a storage error or another
// type; *exists false if there is none.
bool ReadList(Request& r, const std::string& key, ListMeta* meta, bool* exists);
// Every element of the list, in order (read under the key's lock, or
// checked with StillHolds when short); false having replied or set retry.
bool ReadElements(Request& r, const std::string& key, const ListMeta& meta,
                  std::vector<std::string>* elements);
// Pops up to n elements from one end into *values (in pop order), staging
// the deletes in *batch and updating *meta (REQUIRES the key's lock).
bool PopElements(Request& r, ListMeta* meta, bool left, int64_t n, Keyspace::Batch* batch,
                 std::vector<std::string>* values);
// Pushes values, in order, on one end (a new list needs meta->version 0:
// it gets a new one); stages into *batch.
bool PushElements(Request& r, ListMeta* meta, bool left, const std::vector<std::string>& values,
                  Keyspace::Batch* batch);
// Stages the meta record of `key` after pops and pushes: deleted when
// empty, written new (owner record too) when `created`.
void StageListMeta(const std::string& key, const ListMeta& meta, bool created,
                   Keyspace::Batch* batch);
// Replaces the list at `key` by `elements` under a new version (or
// deletes it when empty), keeping its expiry; commits.
bool RewriteList(Request& r, const std::string& key, const ListMeta& meta,
                 const std::vector<std::string>& elements);

// Redis's index rules: negative counts from the end.
inline int64_t NormalizeIndex(int64_t index, int64_t count) {
  return index < 0 ? count + index : index;
}

}  // namespace teksdb::server
