// NumPy .npz archives: the zip central directory, stored or deflated entries, .npy bytes.
#include "tools/dlc/Npz.h"
#include "compiler/TensorFile.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace dlc::cli {
namespace {

uint64_t le(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

bool inflateRaw(const unsigned char *src, size_t srcSize, std::string &dst, size_t size) {
  dst.resize(size);
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK)
    return false;
  zs.next_in = const_cast<unsigned char *>(src);
  zs.avail_in = static_cast<uInt>(srcSize);
  zs.next_out = reinterpret_cast<unsigned char *>(dst.data());
  zs.avail_out = static_cast<uInt>(size);
  int rc = inflate(&zs, Z_FINISH);
  bool ok = rc == Z_STREAM_END && zs.total_out == size;
  inflateEnd(&zs);
  return ok;
}

} // namespace

bool loadNpz(const std::string &path, std::vector<std::pair<std::string, TensorPtr>> &out,
             std::string &error, uint64_t maxBytes) {
  std::string bytes;
  if (!readRegularFile(path, bytes, error)) {
    error = "'" + path + "': " + error;
    return false;
  }
  auto *data = reinterpret_cast<const unsigned char *>(bytes.data());
  size_t size = bytes.size();
  auto bad = [&](const std::string &what) {
    error = "'" + path + "' is not a readable .npz archive: " + what;
    return false;
  };
  // End of central directory: 22 bytes plus a comment of up to 64 KiB.
  size_t eocd = size;
  for (size_t p = size >= 22 ? size - 22 : 0; size >= 22; --p) {
    if (le(data + p, 4) == 0x06054b50) {
      eocd = p;
      break;
    }
    if (p == 0 || size - p > 22 + 65535)
      break;
  }
  if (eocd == size)
    return bad("no zip end-of-central-directory record");
  uint64_t entries = le(data + eocd + 10, 2), cdOffset = le(data + eocd + 16, 4);
  if (entries == 0xFFFF || cdOffset == 0xFFFFFFFF)
    return bad("ZIP64 archives over 4 GiB are not supported");
  size_t p = cdOffset;
  uint64_t total = 0;
  for (uint64_t e = 0; e < entries; ++e) {
    if (p + 46 > size || le(data + p, 4) != 0x02014b50)
      return bad("corrupt central directory");
    uint64_t method = le(data + p + 10, 2), crc = le(data + p + 16, 4), csize = le(data + p + 20, 4),
             usize = le(data + p + 24, 4), offset = le(data + p + 42, 4);
    size_t nameLen = le(data + p + 28, 2), extraLen = le(data + p + 30, 2),
           commentLen = le(data + p + 32, 2);
    if (p + 46 + nameLen + extraLen > size)
      return bad("corrupt central directory");
    std::string name(bytes.data() + p + 46, nameLen);
    // ZIP64 extended information (numpy writes it): the fields that are 0xFFFFFFFF.
    // A field's claimed length is bounded by the extra data it sits in (a longer one read
    // past the file: a fuzz-npz find).
    const size_t extraEnd = p + 46 + nameLen + extraLen;
    for (size_t x = p + 46 + nameLen; x + 4 <= extraEnd;) {
      uint64_t id = le(data + x, 2), len = le(data + x + 2, 2);
      size_t f = x + 4, fieldEnd = std::min<size_t>(x + 4 + len, extraEnd);
      if (id == 1) {
        if (usize == 0xFFFFFFFF && f + 8 <= fieldEnd)
          usize = le(data + f, 8), f += 8;
        if (csize == 0xFFFFFFFF && f + 8 <= fieldEnd)
          csize = le(data + f, 8), f += 8;
        if (offset == 0xFFFFFFFF && f + 8 <= fieldEnd)
          offset = le(data + f, 8);
      }
      x += 4 + len;
    }
    p += 46 + nameLen + extraLen + commentLen;
    // Offsets and sizes come from the file (ZIP64: 64 bits): compare without wrapping.
    if (offset > size || size - offset < 30 || le(data + offset, 4) != 0x04034b50)
      return bad("corrupt local header of '" + name + "'");
    size_t start = offset + 30 + le(data + offset + 26, 2) + le(data + offset + 28, 2);
    if (start > size || csize > size - start)
      return bad("entry '" + name + "' is truncated");
    // Deflate expands at most ~1032:1; a larger claimed size is corrupt (and must not
    // allocate).
    if ((method == 0 && usize != csize) || (method == 8 && usize > csize * 1100 + 1024))
      return bad("entry '" + name + "' has an implausible size");
    total += usize;
    if (total > maxBytes)
      return bad("entry '" + name + "' takes the data past " + std::to_string(maxBytes) +
                 " bytes (the memory limit)");
    std::string npy;
    if (method == 0)
      npy.assign(bytes.data() + start, csize);
    else if (method == 8) {
      if (!inflateRaw(data + start, csize, npy, usize))
        return bad("entry '" + name + "' does not inflate");
    } else
      return bad("entry '" + name + "' uses compression method " + std::to_string(method) +
                 " (expected stored or deflate)");
    if (crc32_z(0, reinterpret_cast<const Bytef *>(npy.data()), npy.size()) != crc)
      return bad("entry '" + name + "' fails its CRC-32 check (corrupt)");
    std::string array = name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0
                            ? name.substr(0, name.size() - 4)
                            : name;
    std::string where = path + ":" + name;
    dlc_tensor_t *t = nullptr;
    if (dlc_tensor_load_npy_buffer(npy.data(), npy.size(), where.c_str(), &t) != DLC_OK) {
      error = dlc_status_message();
      return false;
    }
    out.emplace_back(array, TensorPtr(t));
  }
  return true;
}

} // namespace dlc::cli
