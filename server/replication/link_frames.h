// The frames of a replication link, each a RESP array of bulk strings (so
// the protocol's parser reads them and a person can read a capture).
//
// Primary to replica, after "+CONTINUE <replid>":
//   BATCH <sequence> <bytes>        a write batch (wal_reader.h)
//   PING                            once a second when there is nothing else
// and after "+FULLRESYNC <replid> <sequence>", before the batches:
//   CHUNK <file> <offset> <bytes>   a piece of a checkpoint's file (<= 1 MiB)
//   FILEEND <file> <size> <xxh64>   the file is whole: its size and checksum
//   SYNCEND <sequence>              the checkpoint is whole
// Replica to primary:
//   REPLCONF ACK <sequence>         the last sequence applied
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace teksdb::server::link_frames {

// A frame of `parts`, as RESP.
std::string Frame(std::initializer_list<std::string_view> parts);
std::string Frame(const std::vector<std::string>& parts);

// A file's XXH64 checksum as the FILEEND frame carries it (16 hex digits).
std::string ChecksumText(uint64_t checksum);

}  // namespace teksdb::server::link_frames
