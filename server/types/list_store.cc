// ListStore implementation (list_store.h): a chunk record's value is the
// generation that wrote it (8 bytes big-endian) and the chunk; a chunked
// list's meta payload is its count, first and last chunk ids and
// generation, 8 bytes big-endian each.
#include "list_store.h"

#include <algorithm>
#include <atomic>
#include <optional>

#include "resp_reply.h"

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;
using storage_format::AppendU64;
using storage_format::ReadU64;

namespace {

constexpr size_t kChunkedPayloadBytes = 32;
constexpr size_t kGenerationBytes = 8;
constexpr uint64_t kIdBias = uint64_t{1} << 63;

// A chunk's member name: its id, biased and big-endian.
std::string ChunkName(int64_t id) {
  std::string name;
  AppendU64(&name, static_cast<uint64_t>(id) ^ kIdBias);
  return name;
}

bool ReplyDamaged(Request& r, const std::string& key) {
  ReplyStorageError(r, Status::Corruption("the list at key " + key + " is damaged"));
  return false;
}

// A chunked list's meta payload, decoded; false if it is not one.
struct ChunkedFields {
  int64_t count, first, last;
  uint64_t generation;
};
bool DecodeChunked(const std::string& payload, ChunkedFields* f) {
  if (payload.size() != kChunkedPayloadBytes) return false;
  const char* p = payload.data();
  *f = {static_cast<int64_t>(ReadU64(p)), static_cast<int64_t>(ReadU64(p + 8)),
        static_cast<int64_t>(ReadU64(p + 16)), ReadU64(p + 24)};
  return true;
}

}  // namespace

bool StoredList::Open(Request& r, const std::string& key) {
  *this = StoredList();
  key_ = key;
  std::optional<Keyspace::Value> v;
  const Status s = r.keyspace->Read(key, &v);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  if (!v) return small_ = list_chunk::Empty(), true;
  if (v->type != Keyspace::kList) return reply::Error(r.out, kWrongType), false;
  exists_ = true;
  expire_ms_ = v->expire_ms;
  version_ = v->version;
  if (small()) {
    uint32_t count;
    if (!list_chunk::Count(v->payload, &count) || count == 0) return ReplyDamaged(r, key);
    count_ = count;
    small_ = std::move(v->payload);
    return true;
  }
  ChunkedFields f;
  if (!DecodeChunked(v->payload, &f) || f.count <= 0 || f.first > f.last) {
    return ReplyDamaged(r, key);
  }
  count_ = f.count;
  first_ = f.first;
  last_ = f.last;
  generation_ = f.generation;
  return true;
}

void StoredList::Replace(const std::string& key, int64_t expire_ms) {
  *this = StoredList();
  key_ = key;
  exists_ = true;
  expire_ms_ = expire_ms;
  small_ = list_chunk::Empty();
}

list_chunk::Limits StoredList::limits(const Request& r) const {
  return list_chunk::LimitsFor(r.server.compact_limits.list_fill.load(std::memory_order_relaxed));
}

std::string StoredList::ChunkedPayload() const {
  std::string payload;
  AppendU64(&payload, static_cast<uint64_t>(count_));
  AppendU64(&payload, static_cast<uint64_t>(first_));
  AppendU64(&payload, static_cast<uint64_t>(last_));
  AppendU64(&payload, generation_);
  return payload;
}

template <typename Visit>
bool StoredList::Walk(Request& r, bool from_left, Visit visit) {
  const int64_t end = from_left ? last_ : first_;
  int64_t expected = from_left ? first_ : last_;
  bool stopped = false, reached_end = false, broken = false;
  auto each = [&](const std::string& member, const std::string& value) {
    // The chunk expected next, written no later than the meta record read.
    const bool in_step = member.size() == 8 && value.size() >= kGenerationBytes &&
                         static_cast<int64_t>(ReadU64(member.data()) ^ kIdBias) == expected &&
                         ReadU64(value.data()) <= generation_;
    const Slice chunk = in_step ? Slice(value.data() + kGenerationBytes,
                                        value.size() - kGenerationBytes)
                                : Slice();
    uint32_t count;
    if (!in_step || !list_chunk::Count(chunk, &count)) {
      broken = true;
      return false;
    }
    if (!visit(expected, chunk, count)) return stopped = true, false;
    if (expected == end) return reached_end = true, false;
    expected += from_left ? 1 : -1;
    return true;
  };
  const Status s = from_left
                       ? r.keyspace->ForEachMember(version_, each, ChunkName(first_))
                       : r.keyspace->ForEachMemberBackward(version_, each, ChunkName(last_ + 1));
  if (!s.ok()) return ReplyStorageError(r, s), false;
  return (broken || (!stopped && !reached_end)) ? Settle(r) : true;
}

bool StoredList::Settle(Request& r) {
  std::optional<Keyspace::Value> v;
  const Status s = r.keyspace->Read(key_, &v);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  if (v && v->type == Keyspace::kList && v->version == version_ &&
      v->payload == (small() ? small_ : ChunkedPayload())) {
    return ReplyDamaged(r, key_);
  }
  r.retry = true;
  return false;
}

bool StoredList::Range(Request& r, int64_t start, int64_t stop, std::vector<std::string>* out) {
  out->clear();
  const size_t want = static_cast<size_t>(stop - start + 1);
  // Elements of a chunk whose first is the list's `at`-th, in [start, stop].
  auto take = [&](const Slice& chunk, int64_t at, std::vector<std::string>* into) {
    list_chunk::Reader reader(chunk);
    Slice element;
    for (int64_t i = at; i <= stop && reader.Next(&element); ++i) {
      if (i >= start) into->emplace_back(element.data(), element.size());
    }
  };
  if (small()) {
    take(small_, 0, out);
    return out->size() == want || ReplyDamaged(r, key_);
  }
  if (start <= count_ - 1 - stop) {
    int64_t at = 0;
    if (!Walk(r, true, [&](int64_t, const Slice& chunk, uint32_t n) {
          if (at + n > start) take(chunk, at, out);
          at += n;
          return at <= stop;
        })) {
      return false;
    }
  } else {
    int64_t end = count_;  // one past the chunk's last element
    std::vector<std::vector<std::string>> parts;  // from the last chunk back
    if (!Walk(r, false, [&](int64_t, const Slice& chunk, uint32_t n) {
          const int64_t at = end - n;
          if (at <= stop) {
            parts.emplace_back();
            take(chunk, at, &parts.back());
          }
          end = at;
          return at > start;
        })) {
      return false;
    }
    for (auto part = parts.rbegin(); part != parts.rend(); ++part) {
      for (std::string& e : *part) out->push_back(std::move(e));
    }
  }
  return out->size() == want || Settle(r);
}

bool StoredList::All(Request& r, std::vector<std::string>* out) {
  if (count_ == 0) return out->clear(), true;
  return Range(r, 0, count_ - 1, out);
}

bool StoredList::At(Request& r, int64_t index, std::string* value) {
  std::vector<std::string> one;
  if (!Range(r, index, index, &one)) return false;
  *value = std::move(one.front());
  return true;
}

bool StoredList::Find(Request& r, int64_t index, int64_t* id, uint32_t* offset) {
  bool found = false;
  const bool from_left = index < count_ - index;
  int64_t at = from_left ? 0 : count_;  // the next chunk's first element, or one past its last
  if (!Walk(r, from_left, [&](int64_t chunk_id, const Slice&, uint32_t n) {
        const int64_t first = from_left ? at : at - n;
        if (index >= first && index < first + n) {
          *id = chunk_id;
          *offset = static_cast<uint32_t>(index - first);
          found = true;
          return false;
        }
        at = from_left ? at + n : at - n;
        return true;
      })) {
    return false;
  }
  return found || Settle(r);
}

StoredList::Chunk* StoredList::NewChunk(int64_t id) {
  erased_.erase(id);
  Chunk& c = chunks_[id];
  c = Chunk{list_chunk::Empty(), 0, true};
  return &c;
}

StoredList::Chunk* StoredList::Load(Request& r, int64_t id) {
  const auto loaded = chunks_.find(id);
  if (loaded != chunks_.end()) return &loaded->second;
  std::optional<std::string> value;
  const Status s = r.keyspace->ReadMember(version_, ChunkName(id), &value);
  if (!s.ok()) return ReplyStorageError(r, s), nullptr;
  uint32_t count;
  if (!value || value->size() < kGenerationBytes ||
      !list_chunk::Count(Slice(value->data() + kGenerationBytes, value->size() - kGenerationBytes),
                         &count)) {
    return ReplyDamaged(r, key_), nullptr;
  }
  Chunk& c = chunks_[id];
  c.bytes.assign(*value, kGenerationBytes, std::string::npos);
  c.count = count;
  return &c;
}

bool StoredList::ToChunks(Request& r, std::vector<std::string> elements) {
  uint64_t version;
  const Status s = r.keyspace->NewVersion(&version);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  version_ = version;
  new_version_ = true;
  small_.clear();
  chunks_.clear();
  erased_.clear();
  first_ = 0;
  last_ = -1;
  count_ = 0;
  generation_ = 0;
  return Push(r, false, elements.data(), elements.size());
}

bool StoredList::Push(Request& r, bool left, const std::string* values, size_t n) {
  if (n == 0) return true;
  const list_chunk::Limits limit = limits(r);
  if (small()) {
    if (list_chunk::HowManyFit(limit, count_, small_.size(), values, n) == n) {
      if (!(left ? list_chunk::PushFront(&small_, values, n) : list_chunk::Append(&small_, values, n))) {
        return ReplyDamaged(r, key_);
      }
      count_ += static_cast<int64_t>(n);
      return true;
    }
    // Past one chunk: chunked from now on.
    std::vector<std::string> elements;
    if (left) elements.assign(std::make_reverse_iterator(values + n), std::make_reverse_iterator(values));
    if (!list_chunk::DecodeAll(small_, &elements)) return ReplyDamaged(r, key_);
    if (!left) elements.insert(elements.end(), values, values + n);
    return ToChunks(r, std::move(elements));
  }
  for (size_t i = 0; i < n;) {
    if (first_ > last_) {  // emptied by this command's pops
      first_ = last_ = 0;
      NewChunk(0);
    }
    Chunk* c = Load(r, left ? first_ : last_);
    if (c == nullptr) return false;
    const size_t j = i + list_chunk::HowManyFit(limit, c->count, c->bytes.size(), values + i, n - i);
    if (j == i) {  // full: a new chunk at this end
      NewChunk(left ? --first_ : ++last_);
      continue;
    }
    if (!(left ? list_chunk::PushFront(&c->bytes, values + i, j - i)
               : list_chunk::Append(&c->bytes, values + i, j - i))) {
      return ReplyDamaged(r, key_);
    }
    c->count += static_cast<uint32_t>(j - i);
    c->dirty = true;
    count_ += static_cast<int64_t>(j - i);
    i = j;
  }
  return true;
}

bool StoredList::Pop(Request& r, bool left, int64_t n, std::vector<std::string>* values) {
  n = std::min(n, count_);
  if (n <= 0) return true;
  if (small()) {
    const uint32_t k = static_cast<uint32_t>(n);
    if (!(left ? list_chunk::RemoveFront(&small_, k, values)
               : list_chunk::RemoveBack(&small_, k, values))) {
      return ReplyDamaged(r, key_);
    }
    count_ -= n;
    return true;
  }
  while (n > 0) {
    const int64_t id = left ? first_ : last_;
    Chunk* c = Load(r, id);
    if (c == nullptr) return false;
    const uint32_t take = static_cast<uint32_t>(std::min<int64_t>(n, c->count));
    const bool whole = take == c->count;
    if ((!whole || values != nullptr) &&
        !(left ? list_chunk::RemoveFront(&c->bytes, take, values)
               : list_chunk::RemoveBack(&c->bytes, take, values))) {
      return ReplyDamaged(r, key_);
    }
    if (whole) {
      chunks_.erase(id);
      erased_.insert(id);
      left ? ++first_ : --last_;
    } else {
      c->count -= take;
      c->dirty = true;
    }
    count_ -= take;
    n -= take;
  }
  return true;
}

bool StoredList::Set(Request& r, int64_t index, const std::string& value) {
  if (small()) {
    if (!list_chunk::Replace(&small_, static_cast<uint32_t>(index), value)) {
      return ReplyDamaged(r, key_);
    }
    if (count_ == 1 || small_.size() <= limits(r).max_bytes) return true;
    std::vector<std::string> elements;
    if (!list_chunk::DecodeAll(small_, &elements)) return ReplyDamaged(r, key_);
    return ToChunks(r, std::move(elements));
  }
  int64_t id;
  uint32_t offset;
  if (!Find(r, index, &id, &offset)) return false;
  Chunk* c = Load(r, id);
  if (c == nullptr) return false;
  if (!list_chunk::Replace(&c->bytes, offset, value)) return ReplyDamaged(r, key_);
  c->dirty = true;
  return true;
}

void StoredList::Stage(Keyspace::Batch* batch) {
  if (count_ == 0) {
    if (exists_) batch->Delete(key_);
    return;
  }
  if (small()) {
    const Keyspace::Value value{Keyspace::kList, expire_ms_, small_, 0};
    exists_ ? batch->Put(key_, value) : batch->PutNew(key_, value);
    return;
  }
  ++generation_;
  std::string generation;
  AppendU64(&generation, generation_);
  for (int64_t id : erased_) batch->DeleteMember(version_, ChunkName(id));
  for (auto& [id, c] : chunks_) {
    if (c.dirty) batch->PutMember(version_, ChunkName(id), generation + c.bytes);
    c.dirty = false;
  }
  erased_.clear();
  const Keyspace::Value value{Keyspace::kList, expire_ms_, ChunkedPayload(), version_};
  (new_version_ || !exists_) ? batch->PutNew(key_, value) : batch->Put(key_, value);
}

Status ForEachListElement(const Keyspace& keyspace, const Keyspace::Value& meta,
                          const std::function<bool(const Slice&)>& visit) {
  bool damaged = false;
  // Visits a chunk's elements; false once the walk is over.
  auto each = [&](const Slice& chunk) {
    list_chunk::Reader reader(chunk);
    Slice element;
    while (reader.Next(&element)) {
      if (!visit(element)) return false;
    }
    damaged = reader.corrupt();
    return !damaged;
  };
  Status s;
  if (meta.version == 0) {
    each(meta.payload);
  } else {
    s = keyspace.ForEachMember(meta.version, [&](const std::string&, const std::string& value) {
      if (value.size() < kGenerationBytes) {
        damaged = true;
        return false;
      }
      return each(Slice(value.data() + kGenerationBytes, value.size() - kGenerationBytes));
    });
  }
  if (s.ok() && damaged) s = Status::Corruption("a list's record is damaged");
  return s;
}

int64_t ListChunkCount(const Keyspace::Value& meta) {
  ChunkedFields f;
  if (meta.version == 0 || !DecodeChunked(meta.payload, &f)) return 0;
  return std::max<int64_t>(0, f.last - f.first + 1);
}

Keyspace::KeyLocks LockOnRerun(Request& r, const std::string& key) {
  return r.attempt > 1 ? r.keyspace->LockKeys({key}) : Keyspace::KeyLocks{};
}

bool StageNewList(Request& r, const std::string& key, int64_t expire_ms,
                  const std::vector<std::string>& elements, Keyspace::Batch* batch) {
  StoredList list;
  list.Replace(key, expire_ms);
  if (!list.Push(r, false, elements)) return false;
  list.Stage(batch);
  return true;
}

bool WriteNewList(Request& r, const std::string& key, int64_t expire_ms,
                  const std::vector<std::string>& elements) {
  Keyspace::Batch batch;
  if (!StageNewList(r, key, expire_ms, elements, &batch)) return false;
  const Status s = r.keyspace->Commit(&batch);
  if (!s.ok()) ReplyStorageError(r, s);
  return s.ok();
}

}  // namespace teksdb::server
