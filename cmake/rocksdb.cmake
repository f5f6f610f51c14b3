# The RocksDB this project builds against, and what about it changes the
# build. Debian's package (7.8.3, shared, with RTTI) by default;
# CMAKE_PREFIX_PATH picks another, such as one scripts/build_rocksdb.sh built
# (static, without RTTI unless --rtti, TeksTable built in as its plugin).
# What differs in the code between releases is in
# include/teksdb/rocksdb_version.h; what differs in the build is here:
#
#   TEKSDB_ROCKSDB_TARGET   RocksDB::rocksdb-shared where RocksDB installed a
#                           shared library, else RocksDB::rocksdb (static)
#   TEKSDB_ROCKSDB_SHARED   ON with the shared library: libteksdb is then a
#                           shared library too (LD_PRELOAD-able into RocksDB's
#                           own tools); with a static RocksDB it is static,
#                           so a program never holds two copies of RocksDB
#   TEKSDB_ROCKSDB_HAS_TEKS ON where that RocksDB already holds TeksTable
#                           (built with ROCKSDB_PLUGINS=teks)
#   TEKSDB_COMPILE_MEMTABLE whether libteksdb holds memtable/: not where
#                           RocksDB has it built in (the plugin's is used),
#                           except in sanitized builds, where the plugin's,
#                           compiled uninstrumented with RocksDB, would hide
#                           TeksTable's own synchronisation from TSan; there
#                           libteksdb's instrumented copy comes first on
#                           every link and RocksDB's is never pulled in (the
#                           same symbols, all defined already)
#   C++ standard            C++20 for RocksDB 11 (its headers need it)
#   RTTI                    off (-fno-rtti) where RocksDB was built without
#                           it: a class deriving from one of RocksDB's needs
#                           its base's type info otherwise
#
# RocksDB's CMake package, or the rocksdb.pc its Makefile installs
# (find_rocksdb.cmake). Any RocksDB outside 7.8.3 to 11.x stops the
# configure with a message.
include(${CMAKE_CURRENT_LIST_DIR}/find_rocksdb.cmake)
if(RocksDB_VERSION VERSION_LESS 7.8.3 OR NOT RocksDB_VERSION VERSION_LESS 12)
  message(FATAL_ERROR "TeksDB supports RocksDB 7.8.3 to 11.x; found ${RocksDB_VERSION} "
                      "in ${RocksDB_DIR}")
endif()
if(NOT RocksDB_VERSION VERSION_LESS 11)
  set(CMAKE_CXX_STANDARD 20)
endif()

if(TARGET RocksDB::rocksdb-shared)
  set(TEKSDB_ROCKSDB_TARGET RocksDB::rocksdb-shared)
  set(TEKSDB_ROCKSDB_SHARED ON)
else()
  set(TEKSDB_ROCKSDB_TARGET RocksDB::rocksdb)
  set(TEKSDB_ROCKSDB_SHARED OFF)
endif()

include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_LIBRARIES ${TEKSDB_ROCKSDB_TARGET})
set(CMAKE_REQUIRED_QUIET ON)
# Links only where the library holds the type info of its classes.
check_cxx_source_compiles([=[
#include <typeinfo>
#include "rocksdb/comparator.h"
int main() { return typeid(ROCKSDB_NAMESPACE::Comparator).name()[0] == 0; }
]=] TEKSDB_ROCKSDB_HAS_RTTI)
# Links only where TeksTable's plugin registration is in the library.
check_cxx_source_compiles([=[
extern "C" void teksdb_register_plugin();
int main() {
  void (*volatile registration)() = &teksdb_register_plugin;
  return registration == nullptr;
}
]=] TEKSDB_ROCKSDB_HAS_TEKS)
unset(CMAKE_REQUIRED_LIBRARIES)
unset(CMAKE_REQUIRED_QUIET)
foreach(flag TEKSDB_ROCKSDB_HAS_RTTI TEKSDB_ROCKSDB_HAS_TEKS)
  if(${flag})
    set(${flag} ON)
  else()
    set(${flag} OFF)
  endif()
endforeach()
if(NOT TEKSDB_ROCKSDB_HAS_RTTI)
  add_compile_options(-fno-rtti)
endif()

if(TEKSDB_ROCKSDB_HAS_TEKS AND TEKSDB_SANITIZE STREQUAL "")
  set(TEKSDB_COMPILE_MEMTABLE OFF)
else()
  set(TEKSDB_COMPILE_MEMTABLE ON)
endif()

message(STATUS "TeksDB: RocksDB ${RocksDB_VERSION} (${RocksDB_DIR}): ${TEKSDB_ROCKSDB_TARGET}, "
               "C++${CMAKE_CXX_STANDARD}, RTTI ${TEKSDB_ROCKSDB_HAS_RTTI}, "
               "TeksTable built in ${TEKSDB_ROCKSDB_HAS_TEKS}, memtable/ compiled "
               "${TEKSDB_COMPILE_MEMTABLE}")
