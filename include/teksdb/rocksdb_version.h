// The RocksDB releases TeksTable builds against, 7.8.3 to 11.x, and every
// difference between them that the code has to know, in one place, chosen
// from rocksdb/version.h. Everything else in memtable/, rocksdb/ and
// include/ tests the TEKSDB_ROCKSDB_* macros below, never a version number.
//
//   MemTableRep::GetAndValidate, Iterator::{Seek,Next,Prev}AndValidate
//     9.6: (..., allow_data_in_errors); called when paranoid_memory_checks.
//     10.7: (..., allow_data_in_errors, detect_key_out_of_order,
//            key_validation_callback); also for verify-on-seek.
//   Verify-on-seek, the option: memtable_veirfy_per_key_checksum_on_seek
//     (sic) 10.7, memtable_verify_per_key_checksum_on_seek 11.4
//   MemTableRep::MultiGet (a batch of sorted memtable keys)      11.1
//     (what ColumnFamilyOptions::memtable_batch_lookup_optimization calls)
//   kTypeValuePreferredSeqno (0x18, TimedPut) in memtables, and
//     the value type of seek keys (kValueTypeForSeek; 0x16 before) 9.1
//   DB::MultiGetEntity                                            8.0
//   DB::MultiGetEntity of attribute groups                        8.8
//   DB::Get/MultiGet: only the timestamp-taking ones overridable  9.0
//   Iterator::Refresh(const Snapshot*)                             9.0
//   Iterator::PrepareValue                                         9.8
//   DB::NewCoalescingIterator, NewAttributeGroupIterator           9.2
//   DB::NewMultiScan                                              10.1
//   DB::Open(..., DB**) gone (std::unique_ptr<DB>* instead)       11.0
//
//   Transaction's virtuals (rocksdb/forwarding_transaction.h forwards each):
//     GetImpl (protected, the default MultiGet's per-key read)    8.6
//     CollapseKey                                                 8.7
//     GetForUpdate(options, key, PinnableSlice*, ...)             9.1
//     GetEntity, MultiGetEntity, PutEntity, PutEntityUntracked,
//       GetNumPutEntities                                         9.3
//     GetEntityForUpdate                                          9.4
//     GetAttributeGroupIterator                                   9.8
//     GetCoalescingIterator                                       9.9
//     GetCommitBypassMemTable (9.10 and 9.11 only)                9.10
//     SetDeadlockTimeout                                         10.7
//   TransactionOptions::commit_bypass_memtable (WriteCommitted
//     commits whose writes never reach the rep)                  9.10
//
// TEKSDB_IN_ROCKSDB_TREE is defined (to 1) when TeksTable is compiled as a
// plugin inside a RocksDB source tree (plugin/teks.mk): it then includes
// RocksDB's own internal headers instead of the copies of their layouts in
// memtable/rocksdb_internals.h.
//
// Thread safety: macros and constants only.
//
// Design notes: docs/DESIGN.md §7.
#pragma once

#include "rocksdb/version.h"

#define TEKSDB_ROCKSDB_VERSION (ROCKSDB_MAJOR * 10000 + ROCKSDB_MINOR * 100 + ROCKSDB_PATCH)

#if TEKSDB_ROCKSDB_VERSION < 70803 || ROCKSDB_MAJOR > 11
#error "TeksDB supports RocksDB 7.8.3 to 11.x (include/teksdb/rocksdb_version.h)"
#endif

#define TEKSDB_ROCKSDB_HAS_VALIDATING_READS (TEKSDB_ROCKSDB_VERSION >= 90600)
#define TEKSDB_ROCKSDB_VALIDATION_TAKES_CALLBACK (TEKSDB_ROCKSDB_VERSION >= 100700)
#define TEKSDB_ROCKSDB_HAS_REP_MULTIGET (TEKSDB_ROCKSDB_VERSION >= 110100)
#if TEKSDB_ROCKSDB_VERSION >= 110400
#define TEKSDB_ROCKSDB_VERIFY_ON_SEEK_OPTION memtable_verify_per_key_checksum_on_seek
#elif TEKSDB_ROCKSDB_VALIDATION_TAKES_CALLBACK
#define TEKSDB_ROCKSDB_VERIFY_ON_SEEK_OPTION memtable_veirfy_per_key_checksum_on_seek
#endif
#define TEKSDB_ROCKSDB_SEEKS_WITH_PREFERRED_SEQNO_TYPE (TEKSDB_ROCKSDB_VERSION >= 90100)
#define TEKSDB_ROCKSDB_HAS_MULTIGET_ENTITY (TEKSDB_ROCKSDB_VERSION >= 80000)
#define TEKSDB_ROCKSDB_HAS_ATTRIBUTE_GROUPS (TEKSDB_ROCKSDB_VERSION >= 80800)
#define TEKSDB_ROCKSDB_READS_FUNNEL_INTO_TIMESTAMPED (TEKSDB_ROCKSDB_VERSION >= 90000)
#define TEKSDB_ROCKSDB_HAS_ITERATOR_REFRESH_TO_SNAPSHOT (TEKSDB_ROCKSDB_VERSION >= 90000)
#define TEKSDB_ROCKSDB_HAS_PREPARE_VALUE (TEKSDB_ROCKSDB_VERSION >= 90800)
#define TEKSDB_ROCKSDB_HAS_COALESCING_ITERATORS (TEKSDB_ROCKSDB_VERSION >= 90200)
#define TEKSDB_ROCKSDB_HAS_MULTI_SCAN (TEKSDB_ROCKSDB_VERSION >= 100100)
#define TEKSDB_ROCKSDB_OPEN_TAKES_UNIQUE_PTR (TEKSDB_ROCKSDB_VERSION >= 110000)

#define TEKSDB_ROCKSDB_TXN_HAS_GET_IMPL (TEKSDB_ROCKSDB_VERSION >= 80600)
#define TEKSDB_ROCKSDB_TXN_HAS_COLLAPSE_KEY (TEKSDB_ROCKSDB_VERSION >= 80700)
#define TEKSDB_ROCKSDB_TXN_HAS_PINNABLE_GET_FOR_UPDATE_DEFAULT_CF (TEKSDB_ROCKSDB_VERSION >= 90100)
#define TEKSDB_ROCKSDB_TXN_HAS_ENTITIES (TEKSDB_ROCKSDB_VERSION >= 90300)
#define TEKSDB_ROCKSDB_TXN_HAS_GET_ENTITY_FOR_UPDATE (TEKSDB_ROCKSDB_VERSION >= 90400)
#define TEKSDB_ROCKSDB_TXN_HAS_ATTRIBUTE_GROUP_ITERATOR (TEKSDB_ROCKSDB_VERSION >= 90800)
#define TEKSDB_ROCKSDB_TXN_HAS_COALESCING_ITERATOR (TEKSDB_ROCKSDB_VERSION >= 90900)
#define TEKSDB_ROCKSDB_TXN_HAS_COMMIT_BYPASS_GETTER \
  (TEKSDB_ROCKSDB_VERSION >= 91000 && TEKSDB_ROCKSDB_VERSION < 100000)
#define TEKSDB_ROCKSDB_TXN_HAS_DEADLOCK_TIMEOUT (TEKSDB_ROCKSDB_VERSION >= 100700)
#define TEKSDB_ROCKSDB_HAS_COMMIT_BYPASS_MEMTABLE (TEKSDB_ROCKSDB_VERSION >= 91000)

#ifndef TEKSDB_IN_ROCKSDB_TREE
#define TEKSDB_IN_ROCKSDB_TREE 0
#endif
