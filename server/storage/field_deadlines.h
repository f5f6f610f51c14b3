// FieldDeadlines: the deletes of Redis 7.4's hash field expiration - a hash
// field past its deadline reclaimed (storage_format.h's "E" deadline
// records and "T" due entries, or a listpackex's fields inside its record,
// compact_members.h; DESIGN.md §14). Reads already treat such a field as
// absent (types/collection.h); these write it away: its "H" and "E"
// records deleted (or its entry in the compact record), the hash's count
// lowered, the key deleted when it was the last field, in one batch
// through the key's lock, so that a replica gets it through the WAL as any
// write.
//
// Two callers: the expiry sweep (expiry_sweeper.h), which walks the due
// entries in deadline order, and a connection whose read met a field past
// its deadline (lazy expiry, Keyspace::NoteExpiredField).
//
// A due entry is a hint: the field's own deadline decides. An entry whose
// hash is gone or replaced (another version), whose field was rewritten,
// persisted or given another deadline, is deleted without touching the
// hash; one whose hash moved (RENAME, MOVE, SWAPDB) between the sweep's
// read of the owner record and the key's lock waits for the next tick.
//
// Thread safety: each call takes the key's lock (Keyspace::LockKeys) for
// its read and write; the sweep's walk of due entries reads without one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "keyspace.h"

namespace teksdb::server::field_deadlines {

// Deletes `field` of hash `key` in `view`'s database if its deadline is at
// or before now (and, when `version` is not 0, the hash is still that
// version, or a listpackex of that due version). *reclaimed: whether it
// did; *key_deleted: whether the key went with it. `due_deadline` (not 0):
// the sweep's due entry of `version` for the field, deleted in the same
// batch, under the key's lock, once it is done with (the field reclaimed,
// or its deadline another; the hash gone for good) and kept when the hash
// moved to another key meanwhile (the next tick finds it there).
ROCKSDB_NAMESPACE::Status ReclaimField(Keyspace& view, const std::string& key,
                                       const std::string& field, uint64_t version,
                                       int64_t due_deadline, bool* reclaimed, bool* key_deleted);

// One field the sweep reclaimed, for its notifications.
using Told = std::function<void(int db, const std::string& key, bool key_deleted)>;

// The sweep's step: up to `max` due entries with a deadline at or before
// now, from the entry key *from on (empty: the first), each acted on
// (ReclaimField) and deleted; *from is left past the last one acted on,
// so the next step does not walk again over the deletes this one left
// (tombstones, until a compaction). Entries below *from that a step kept
// (their hash moved) wait until the caller empties *from again; an empty
// walk from a non-empty *from empties it and answers *any true, so a
// sweep goes idle only once a walk from the first entry found none.
// *any: whether any due entry exists (due or not); *reclaimed: fields
// reclaimed. `stop` is asked before each entry (a client pause began).
ROCKSDB_NAMESPACE::Status ReclaimDue(Keyspace& keyspace, size_t max, const Told& told,
                                     const std::function<bool()>& stop, bool* any,
                                     uint64_t* reclaimed, std::string* from);

}  // namespace teksdb::server::field_deadlines
