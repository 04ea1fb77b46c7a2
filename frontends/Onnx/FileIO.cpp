// See RegularFile.h.
#include "frontends/Onnx/FileIO.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dlc {

int openRegularFile(const std::string &path, std::string &error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    error = std::string("cannot open file: ") + std::strerror(errno);
    return -1;
  }
  struct stat st = {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
    error = S_ISDIR(st.st_mode) ? "is a directory, expected a file" : "is not a regular file";
    ::close(fd);
    return -1;
  }
  return fd;
}

bool readRegularFile(const std::string &path, std::string &bytes, std::string &error) {
  int fd = openRegularFile(path, error);
  if (fd < 0)
    return false;
  struct stat st = {};
  bool ok = ::fstat(fd, &st) == 0;
  if (ok) {
    bytes.assign(static_cast<size_t>(st.st_size), '\0');
    for (size_t done = 0; ok && done < bytes.size();) {
      ssize_t got = ::read(fd, bytes.data() + done, bytes.size() - done);
      if (got < 0 && errno == EINTR)
        continue;
      ok = got > 0; // 0: the file shrank while being read
      done += ok ? static_cast<size_t>(got) : 0;
    }
  }
  if (!ok)
    error = std::string("cannot read file: ") + std::strerror(errno ? errno : EIO);
  ::close(fd);
  return ok;
}

/// Writes all of `data` (EINTR and short writes retried); false with errno set.
static bool writeAll(int fd, std::string_view data) {
  for (size_t done = 0; done < data.size();) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

bool writeFileAtomically(const std::string &path, std::string_view data, std::string &error) {
  auto fail = [&](const std::string &why) {
    error = "cannot write '" + path + "': " + why;
    return false;
  };
  struct stat st = {};
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    return fail(S_ISLNK(st.st_mode) ? "it is a symbolic link (only a regular file is replaced)"
                                    : "it exists and is not a regular file");
  size_t slash = path.rfind('/');
  std::string tmp = (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) +
                    ".dlc-tmp-XXXXXX";
  int fd = ::mkostemp(tmp.data(), O_CLOEXEC); // O_CREAT | O_EXCL, mode 0600
  if (fd < 0)
    return fail(std::strerror(errno));
  mode_t mask = ::umask(0);
  ::umask(mask);
  bool ok = ::fchmod(fd, 0666 & ~mask) == 0 && writeAll(fd, data) && ::fsync(fd) == 0;
  int e = errno;
  ok = ::close(fd) == 0 && ok;
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    e = errno;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    return fail(std::strerror(e ? e : EIO));
  }
  return true;
}

bool readExternalData(const std::string &name,
                      const std::vector<std::pair<std::string, std::string>> &entries,
                      const std::string &baseDir, uint64_t expectedBytes, std::string &bytes,
                      std::string &error) {
  std::string location;
  int64_t offset = 0, length = -1;
  std::string prefix = "initializer '" + name + "'";
  for (const auto &[key, text] : entries) {
    if (key == "location") {
      location = text;
    } else if (key == "offset" || key == "length") {
      // Decimal digits only: no sign, no base prefix, no trailing text, within int64.
      bool digits = !text.empty();
      for (char c : text)
        digits &= c >= '0' && c <= '9';
      errno = 0;
      unsigned long long v = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
      if (!digits || errno == ERANGE || v > (unsigned long long)INT64_MAX) {
        error = prefix + ": external data " + key + " '" + text +
                "' is not a decimal integer in [0, 2^63)";
        return false;
      }
      (key == "offset" ? offset : length) = int64_t(v);
    }
  }
  if (location.find('\0') != std::string::npos) {
    error = prefix + ": external data location contains a NUL byte";
    return false;
  }
  if (location.empty()) {
    error = prefix + " has external data without a location";
    return false;
  }
  // Resolved, it must lie inside the model's (resolved) directory.
  char realBase[PATH_MAX], real[PATH_MAX];
  std::string full = (baseDir.empty() ? std::string(".") : baseDir) + "/" + location;
  if (location[0] == '/' || !::realpath(baseDir.empty() ? "." : baseDir.c_str(), realBase) ||
      !::realpath(full.c_str(), real) ||
      std::strncmp(real, realBase, std::strlen(realBase)) != 0 ||
      real[std::strlen(realBase)] != '/') {
    error = prefix + ": external data location '" + location +
            "' is missing or outside the model directory";
    return false;
  }
  int fd = openRegularFile(real, error);
  if (fd < 0) {
    error = prefix + ": external data '" + location + "' " + error;
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    error = "cannot read external data '" + location + "'";
    return false;
  }
  int64_t size = st.st_size;
  auto failWith = [&](std::string msg) {
    ::close(fd);
    error = std::move(msg);
    return false;
  };
  if (offset > size)
    return failWith(prefix + ": external data offset " + std::to_string(offset) +
                    " exceeds file size " + std::to_string(size));
  if (length < 0)
    length = size - offset;
  if (uint64_t(length) != expectedBytes)
    return failWith(prefix + ": external data holds " + std::to_string(length) +
                    " bytes, expected " + std::to_string(expectedBytes) +
                    " for its dims and type");
  if (length > size - offset)
    return failWith(prefix + ": external data range [" + std::to_string(offset) + ", +" +
                    std::to_string(length) + ") exceeds file size " + std::to_string(size));
  // Only the tensor's own bytes are read.
  bytes.assign(size_t(length), '\0');
  for (int64_t done = 0; done < length;) {
    ssize_t got = ::pread(fd, bytes.data() + done, size_t(length - done), offset + done);
    if (got <= 0)
      return failWith("cannot read external data '" + location + "'");
    done += got;
  }
  ::close(fd);
  return true;
}

} // namespace dlc
