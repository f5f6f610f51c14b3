// ListChunk (list_chunk.h): varint lengths as RocksDB writes them (7 bits
// a byte, low first), each element's written again after it with its bytes
// reversed, so that read leftwards from the element's end it is the same
// varint.
#include "list_chunk.h"

#include <algorithm>

namespace teksdb::server::list_chunk {

using ROCKSDB_NAMESPACE::Slice;

namespace {

// Redis's quicklist: 8 KB at most for a positive fill, 4 KB << (-fill - 1)
// for a negative one, at most 64 KB.
constexpr size_t kSafetyLimit = 8192;

size_t VarintLength(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutBackVarint(std::string* out, uint64_t v) {
  const size_t at = out->size();
  PutVarint(out, v);
  std::reverse(out->begin() + static_cast<std::ptrdiff_t>(at), out->end());
}

// Reads a varint at chunk[*pos...]; false past `end`.
bool GetVarint(const char* chunk, size_t* pos, size_t end, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift <= 63 && *pos < end; shift += 7) {
    const uint64_t byte = static_cast<unsigned char>(chunk[(*pos)++]);
    *v |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

// Reads a reversed varint ending at chunk[*pos - 1], leftwards; false
// before `begin`.
bool GetBackVarint(const char* chunk, size_t* pos, size_t begin, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift <= 63 && *pos > begin; shift += 7) {
    const uint64_t byte = static_cast<unsigned char>(chunk[--(*pos)]);
    *v |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

void PutElement(std::string* out, const Slice& value) {
  PutVarint(out, value.size());
  out->append(value.data(), value.size());
  PutBackVarint(out, value.size());
}

// The element starting at `pos`: its value, and where the next one starts.
bool NextElement(const Slice& chunk, size_t* pos, Slice* value) {
  uint64_t n;
  if (!GetVarint(chunk.data(), pos, chunk.size(), &n) || n > chunk.size() - *pos) return false;
  *value = Slice(chunk.data() + *pos, n);
  *pos += n;
  const size_t length_bytes = VarintLength(n);
  if (length_bytes > chunk.size() - *pos) return false;
  *pos += length_bytes;
  size_t back_at = *pos;
  uint64_t back;
  return GetBackVarint(chunk.data(), &back_at, *pos - length_bytes, &back) && back == n;
}

// The element ending at `pos`: its value, and where it starts.
bool PreviousElement(const Slice& chunk, size_t* pos, Slice* value) {
  uint64_t n;
  if (!GetBackVarint(chunk.data(), pos, kHeaderBytes, &n) || n > *pos - kHeaderBytes) return false;
  *pos -= n;
  *value = Slice(chunk.data() + *pos, n);
  const size_t length_bytes = VarintLength(n);
  if (*pos < kHeaderBytes + length_bytes) return false;
  *pos -= length_bytes;
  size_t at = *pos;
  uint64_t forward;
  return GetVarint(chunk.data(), &at, *pos + length_bytes, &forward) && forward == n;
}

// Takes n elements from `pos` on, each by `step` (NextElement leftwards to
// right, PreviousElement right to left), appending them to *out (if not
// null); false, with *out as it was, when the bytes are damaged.
template <typename Step>
bool Take(const Slice& chunk, size_t* pos, uint32_t n, Step step, std::vector<std::string>* out) {
  const size_t out_size = out != nullptr ? out->size() : 0;
  for (uint32_t i = 0; i < n; ++i) {
    Slice value;
    if (!step(chunk, pos, &value)) {
      if (out != nullptr) out->resize(out_size);
      return false;
    }
    if (out != nullptr) out->emplace_back(value.data(), value.size());
  }
  return true;
}

void SetCount(std::string* chunk, uint32_t count) {
  for (int i = 0; i < 4; ++i) (*chunk)[i] = static_cast<char>(count >> (24 - 8 * i));
}


}  // namespace

Limits LimitsFor(int64_t fill) {
  if (fill >= 0) return {std::max<int64_t>(fill, 1), std::min(kSafetyLimit, kMaxChunkBytes)};
  const int64_t shift = std::min<int64_t>(-fill - 1, 4);
  return {INT64_MAX, std::min(size_t{4096} << shift, kMaxChunkBytes)};
}

size_t ElementBytes(size_t size) { return size + 2 * VarintLength(size); }

size_t HowManyFit(const Limits& limits, int64_t count, size_t bytes, const std::string* values,
                  size_t n) {
  size_t fit = 0;
  for (; fit < n; ++fit, ++count) {
    const size_t add = ElementBytes(values[fit].size());
    if (!Fits(limits, count, bytes, add)) break;
    bytes += add;
  }
  return fit;
}

std::string Empty() { return std::string(kHeaderBytes, '\0'); }

bool Count(const Slice& chunk, uint32_t* count) {
  if (chunk.size() < kHeaderBytes) return false;
  *count = 0;
  for (size_t i = 0; i < kHeaderBytes; ++i) {
    *count = (*count << 8) | static_cast<unsigned char>(chunk[i]);
  }
  return true;
}

Reader::Reader(const Slice& chunk) : rest_(chunk) {
  if (!Count(chunk, &count_)) {
    corrupt_ = true;
    return;
  }
  left_ = count_;
  rest_.remove_prefix(kHeaderBytes);
}

bool Reader::Next(Slice* element) {
  if (left_ == 0 || corrupt_) {
    if (left_ == 0 && !rest_.empty()) corrupt_ = true;
    return false;
  }
  size_t pos = 0;
  if (!NextElement(rest_, &pos, element)) {
    corrupt_ = true;
    return false;
  }
  rest_.remove_prefix(pos);
  --left_;
  return true;
}

bool DecodeAll(const Slice& chunk, std::vector<std::string>* out) {
  uint32_t count;
  size_t pos = kHeaderBytes;
  const size_t out_size = out->size();
  if (!Count(chunk, &count) || !Take(chunk, &pos, count, NextElement, out)) return false;
  if (pos == chunk.size()) return true;
  out->resize(out_size);  // bytes past the count's last element
  return false;
}

bool PushFront(std::string* chunk, const std::string* values, size_t n) {
  uint32_t count;
  if (!Count(*chunk, &count)) return false;
  std::string front;
  for (size_t i = n; i-- > 0;) PutElement(&front, values[i]);
  chunk->insert(kHeaderBytes, front);
  SetCount(chunk, count + static_cast<uint32_t>(n));
  return true;
}

bool Append(std::string* chunk, const std::string* values, size_t n) {
  uint32_t count;
  if (!Count(*chunk, &count)) return false;
  for (size_t i = 0; i < n; ++i) PutElement(chunk, values[i]);
  SetCount(chunk, count + static_cast<uint32_t>(n));
  return true;
}

bool RemoveFront(std::string* chunk, uint32_t n, std::vector<std::string>* out) {
  uint32_t count;
  size_t pos = kHeaderBytes;
  if (!Count(*chunk, &count) || n > count || !Take(*chunk, &pos, n, NextElement, out)) {
    return false;
  }
  chunk->erase(kHeaderBytes, pos - kHeaderBytes);
  SetCount(chunk, count - n);
  return true;
}

bool RemoveBack(std::string* chunk, uint32_t n, std::vector<std::string>* out) {
  uint32_t count;
  size_t pos = chunk->size();
  if (!Count(*chunk, &count) || n > count || !Take(*chunk, &pos, n, PreviousElement, out)) {
    return false;
  }
  chunk->resize(pos);
  SetCount(chunk, count - n);
  return true;
}

bool Replace(std::string* chunk, uint32_t index, const Slice& value) {
  uint32_t count;
  if (!Count(*chunk, &count) || index >= count) return false;
  const Slice bytes(*chunk);
  size_t start = kHeaderBytes;
  Slice element;
  for (uint32_t i = 0; i < index; ++i) {
    if (!NextElement(bytes, &start, &element)) return false;
  }
  size_t end = start;
  if (!NextElement(bytes, &end, &element)) return false;
  std::string replacement;
  PutElement(&replacement, value);
  chunk->replace(start, end - start, replacement);
  return true;
}

}  // namespace teksdb::server::list_chunk
