// See RegularFile.h.
#include "frontends/Onnx/FileIO.h"

#include <cerrno>
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

} // namespace dlc
