// Reading and writing user-named files safely (no MLIR or runtime dependency: the
// importer, the TensorProto files, the compiler's outputs and the CLI share it).
#ifndef DLC_FRONTENDS_ONNX_REGULARFILE_H
#define DLC_FRONTENDS_ONNX_REGULARFILE_H

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dlc {

/// Opens `path` for reading if it is a regular file: the open does not block (a FIFO or a
/// device would), and anything but a regular file is refused. Returns the descriptor
/// (blocking again, close-on-exec), or -1 with `error` set ("cannot open file: ..." or
/// "is not a regular file").
int openRegularFile(const std::string &path, std::string &error);

/// The whole content of the regular file `path` (see openRegularFile); false with `error`
/// set if it cannot be opened or read.
bool readRegularFile(const std::string &path, std::string &bytes, std::string &error);

/// Replaces `path` with `data` atomically: a new temporary file beside it (created
/// exclusively, so never through a planted link), every write checked (ENOSPC, EIO, ...),
/// fsync, then a rename. Only a regular file is replaced: a symlink, device, FIFO or
/// directory at `path` is refused. On failure the previous file (or none) stays and no
/// temporary file is left; `error` is "cannot write 'PATH': why".
bool writeFileAtomically(const std::string &path, std::string_view data, std::string &error);

/// The bytes of an ONNX tensor's external data. `entries` are its `external_data`
/// key/value pairs (location, offset, length); `name` names the initializer in errors.
/// Refuses any location that leaves `baseDir` (the model's directory) and any range
/// other than `expectedBytes` (what the tensor's dims and type need), checked before
/// anything is allocated or read. False with a one-line `error` (no file prefix).
bool readExternalData(const std::string &name,
                      const std::vector<std::pair<std::string, std::string>> &entries,
                      const std::string &baseDir, uint64_t expectedBytes, std::string &bytes,
                      std::string &error);

} // namespace dlc

#endif
