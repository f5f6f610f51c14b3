// ForwardingTransaction (rocksdb/forwarding_transaction.h) overrides every
// virtual of RocksDB's Transaction. A new pure virtual in RocksDB already
// fails the build; a new virtual with a default would silently run on the
// wrapper instead of the wrapped transaction. So this test reads the
// wrapper's vtable, one slot per virtual of Transaction (the wrapper adds
// none), and names each slot's function by its symbol (the test exports its
// symbols, ENABLE_EXPORTS): every one must be the project's, none
// Transaction's default. And the forwarders forward: through a real
// pessimistic transaction, the state a caller reads matches the wrapped one,
// and (RocksDB 9.3+) wide-column entities written through the wrapper read
// back through it.
#include "forwarding_transaction.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "rocksdb/utilities/transaction_db.h"
#include "teksdb/rocksdb_version.h"
#include "test_support.h"

namespace teksdb {
namespace {

using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Transaction;
using ROCKSDB_NAMESPACE::TransactionDB;
using ROCKSDB_NAMESPACE::TransactionDBOptions;
using ROCKSDB_NAMESPACE::WriteOptions;

std::string Demangled(const char* symbol) {
  int status = 0;
  char* name = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
  std::string result = status == 0 ? name : symbol;
  std::free(name);
  return result;
}

TEST(ForwardingTransactionTest, OverridesEveryVirtualOfRocksDBsTransaction) {
  // Itanium ABI: the vtable symbol covers offset-to-top, the type info, then
  // one pointer per virtual function slot.
  const char* const kVtable = "_ZTVN6teksdb21ForwardingTransactionE";
  void* vtable = dlsym(RTLD_DEFAULT, kVtable);
  ASSERT_NE(vtable, nullptr) << kVtable << " is not exported: " << dlerror();
  Dl_info info;
  void* entry = nullptr;
  ASSERT_NE(dladdr1(vtable, &info, &entry, RTLD_DL_SYMENT), 0);
  const auto* symbol = static_cast<const ElfW(Sym)*>(entry);
  ASSERT_NE(symbol, nullptr);
  const size_t slots = symbol->st_size / sizeof(void*) - 2;
  // 7.8.3's Transaction has 83 declared virtuals; the destructor takes two
  // slots. Fewer would mean the vtable was not read right.
  ASSERT_GE(slots, 80u);
  void* const* functions = static_cast<void* const*>(vtable) + 2;
  for (size_t i = 0; i < slots; ++i) {
    Dl_info fn;
    ASSERT_NE(dladdr(functions[i], &fn), 0) << "slot " << i;
    ASSERT_NE(fn.dli_sname, nullptr) << "slot " << i;
    const std::string name = Demangled(fn.dli_sname);
    EXPECT_EQ(name.rfind("teksdb::ForwardingTransaction::", 0), 0u)
        << "vtable slot " << i << " runs " << name
        << ": RocksDB's Transaction has a virtual ForwardingTransaction does not override";
  }
}

TEST(ForwardingTransactionTest, ForwardsCallsAndMirrorsTheWrappedState) {
  test::TempDir dir("forwarding_transaction_test");
  Options options;
  options.create_if_missing = true;
  options.allow_2pc = true;
  TransactionDB* raw = nullptr;
  ASSERT_TRUE(TransactionDB::Open(options, TransactionDBOptions(), dir.path(), &raw).ok());
  std::unique_ptr<TransactionDB> db(raw);

  auto* inner = db->BeginTransaction(WriteOptions());
  const Transaction* inner_view = inner;
  ForwardingTransaction txn{std::unique_ptr<Transaction>(inner)};
  EXPECT_EQ(txn.GetID(), inner_view->GetID());
  EXPECT_EQ(txn.GetId(), const_cast<Transaction*>(inner_view)->GetId());
  ASSERT_TRUE(txn.SetName("forwarded").ok());
  EXPECT_EQ(txn.GetName(), "forwarded");
  ASSERT_TRUE(txn.Put("key", "value").ok());
  EXPECT_EQ(inner_view->GetNumPuts(), 1u);
  std::string value;
  ASSERT_TRUE(txn.Get(ReadOptions(), "key", &value).ok());
  EXPECT_EQ(value, "value");
  ASSERT_TRUE(txn.Prepare().ok());
  EXPECT_EQ(txn.GetState(), Transaction::PREPARED);
  EXPECT_EQ(txn.GetLogNumber(), inner_view->GetLogNumber());
  ASSERT_TRUE(txn.Commit().ok());
  EXPECT_EQ(txn.GetState(), Transaction::COMMITTED);
  ASSERT_TRUE(db->Get(ReadOptions(), "key", &value).ok());
  EXPECT_EQ(value, "value");
}

#if TEKSDB_ROCKSDB_TXN_HAS_ENTITIES
TEST(ForwardingTransactionTest, ForwardsWideColumnEntities) {
  test::TempDir dir("forwarding_transaction_entities");
  Options options;
  options.create_if_missing = true;
  TransactionDB* raw = nullptr;
  ASSERT_TRUE(TransactionDB::Open(options, TransactionDBOptions(), dir.path(), &raw).ok());
  std::unique_ptr<TransactionDB> db(raw);

  ForwardingTransaction txn{std::unique_ptr<Transaction>(db->BeginTransaction(WriteOptions()))};
  auto* cf = db->DefaultColumnFamily();
  const ROCKSDB_NAMESPACE::WideColumns columns{{"a", "1"}, {"b", "2"}};
  ASSERT_TRUE(txn.PutEntity(cf, "entity", columns).ok());
  ASSERT_TRUE(txn.PutEntityUntracked(cf, "untracked", {{"c", "3"}}).ok());
  EXPECT_EQ(txn.GetNumPutEntities(), 2u);

  ROCKSDB_NAMESPACE::PinnableWideColumns read;
  ASSERT_TRUE(txn.GetEntity(ReadOptions(), cf, "entity", &read).ok());
  EXPECT_EQ(read.columns(), columns);
  ROCKSDB_NAMESPACE::Slice keys[2] = {"entity", "untracked"};
  ROCKSDB_NAMESPACE::PinnableWideColumns results[2];
  ROCKSDB_NAMESPACE::Status statuses[2];
  txn.MultiGetEntity(ReadOptions(), cf, 2, keys, results, statuses);
  ASSERT_TRUE(statuses[0].ok() && statuses[1].ok());
  EXPECT_EQ(results[1].columns(), (ROCKSDB_NAMESPACE::WideColumns{{"c", "3"}}));
  ASSERT_TRUE(txn.Commit().ok());

  ROCKSDB_NAMESPACE::PinnableWideColumns committed;
  ASSERT_TRUE(db->GetEntity(ReadOptions(), cf, "entity", &committed).ok());
  EXPECT_EQ(committed.columns(), columns);
}
#endif

}  // namespace
}  // namespace teksdb
