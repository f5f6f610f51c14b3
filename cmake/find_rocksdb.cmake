# Finds RocksDB and defines what RocksDB's own CMake package does:
# RocksDB_FOUND, RocksDB_VERSION, RocksDB_DIR and the imported target
# RocksDB::rocksdb-shared (where a shared library is installed) or
# RocksDB::rocksdb (static). Used by cmake/rocksdb.cmake and, installed
# beside it, by teksdbConfig.cmake.
#
# RocksDB's CMake build installs that package; its Makefile (make
# install-static / install-shared) installs only lib/pkgconfig/rocksdb.pc.
# A prefix in CMAKE_PREFIX_PATH holding such a .pc and no package is read
# from the .pc (a static library's dependencies from its Libs.private);
# otherwise find_package(RocksDB CONFIG) searches as usual (Debian's
# package in the system paths).
find_package(RocksDB CONFIG QUIET NO_CMAKE_ENVIRONMENT_PATH NO_SYSTEM_ENVIRONMENT_PATH
             NO_CMAKE_PACKAGE_REGISTRY NO_CMAKE_SYSTEM_PATH NO_CMAKE_SYSTEM_PACKAGE_REGISTRY)
if(NOT RocksDB_FOUND)
  find_file(TEKSDB_ROCKSDB_PC rocksdb.pc NO_DEFAULT_PATH
            PATHS ${CMAKE_PREFIX_PATH} PATH_SUFFIXES lib/pkgconfig lib64/pkgconfig)
endif()
if(NOT RocksDB_FOUND AND TEKSDB_ROCKSDB_PC)
  find_package(PkgConfig REQUIRED QUIET)
  get_filename_component(RocksDB_DIR "${TEKSDB_ROCKSDB_PC}" DIRECTORY)
  set(_teksdb_saved_pc_path "$ENV{PKG_CONFIG_PATH}")
  set(ENV{PKG_CONFIG_PATH} "${RocksDB_DIR}")
  pkg_check_modules(_teksdb_rocksdb_pc REQUIRED QUIET rocksdb)
  pkg_get_variable(_teksdb_rocksdb_libdir rocksdb libdir)
  set(ENV{PKG_CONFIG_PATH} "${_teksdb_saved_pc_path}")
  set(RocksDB_VERSION "${_teksdb_rocksdb_pc_VERSION}")
  if(NOT _teksdb_rocksdb_libdir)
    get_filename_component(_teksdb_rocksdb_libdir "${RocksDB_DIR}" DIRECTORY)
  endif()
  # The Makefile's Cflags also carry its build's own relative -isystem
  # paths: only directories that exist are kept.
  set(_teksdb_rocksdb_includes "")
  foreach(dir IN LISTS _teksdb_rocksdb_pc_INCLUDE_DIRS)
    if(IS_ABSOLUTE "${dir}" AND IS_DIRECTORY "${dir}")
      list(APPEND _teksdb_rocksdb_includes "${dir}")
    endif()
  endforeach()
  if(EXISTS "${_teksdb_rocksdb_libdir}/librocksdb.so" AND NOT TARGET RocksDB::rocksdb-shared)
    add_library(RocksDB::rocksdb-shared SHARED IMPORTED)
    set_target_properties(RocksDB::rocksdb-shared PROPERTIES
      IMPORTED_LOCATION "${_teksdb_rocksdb_libdir}/librocksdb.so"
      INTERFACE_INCLUDE_DIRECTORIES "${_teksdb_rocksdb_includes}")
  elseif(EXISTS "${_teksdb_rocksdb_libdir}/librocksdb.a" AND NOT TARGET RocksDB::rocksdb)
    # Libs.private: the compression and system libraries the archive needs.
    set(_teksdb_rocksdb_deps ${_teksdb_rocksdb_pc_STATIC_LDFLAGS})
    list(FILTER _teksdb_rocksdb_deps EXCLUDE REGEX "^-L|^-lrocksdb$")
    add_library(RocksDB::rocksdb STATIC IMPORTED)
    set_target_properties(RocksDB::rocksdb PROPERTIES
      IMPORTED_LOCATION "${_teksdb_rocksdb_libdir}/librocksdb.a"
      INTERFACE_INCLUDE_DIRECTORIES "${_teksdb_rocksdb_includes}"
      INTERFACE_LINK_LIBRARIES "${_teksdb_rocksdb_deps}")
  elseif(NOT TARGET RocksDB::rocksdb AND NOT TARGET RocksDB::rocksdb-shared)
    message(FATAL_ERROR "${TEKSDB_ROCKSDB_PC} names no librocksdb.so or librocksdb.a "
                        "in ${_teksdb_rocksdb_libdir}")
  endif()
  set(RocksDB_FOUND TRUE)
elseif(NOT RocksDB_FOUND)
  find_package(RocksDB CONFIG REQUIRED)
endif()
