# TeksTable as a RocksDB plugin (plugin/README.md in RocksDB's sources).
# Symlink this directory into a RocksDB source tree as plugin/teks, then
# build RocksDB with ROCKSDB_PLUGINS=teks, by make or CMake (what
# scripts/build_rocksdb.sh does). RocksDB's CMake reads the two lines below
# as they are: keep each on one line.
teks_SOURCES = teks_plugin.cc
teks_FUNC = teksdb_register_plugin
# The repository this directory belongs to, through the symlink.
teks_REPO := $(abspath $(dir $(realpath $(lastword $(MAKEFILE_LIST))))/..)
# GCC 12 warns, falsely, of uninitialized reads inside xxhash's AVX-512 code
# (RocksDB builds for the CPU it runs on), which RocksDB's -Werror would
# make an error.
teks_CXXFLAGS = -I$(teks_REPO)/include -Wno-error=maybe-uninitialized
