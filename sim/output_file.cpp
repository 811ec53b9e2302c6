#include "sim/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

namespace knobsim {
namespace {

// The registry of temporary files being written, for the signal handler: fixed storage (a
// handler may not allocate), a slot's path readable once its state is kReady.
constexpr int kSlots = 64;
constexpr size_t kPathBytes = 4096;
constexpr int kFree = 0, kFilling = 1, kReady = 2;
std::array<std::array<char, kPathBytes>, kSlots> g_paths;
std::array<std::atomic<int>, kSlots> g_state{};
constexpr int kCleanedSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Async-signal-safe: unlink, sigaction and raise only.
extern "C" void RemovePendingAndReraise(int sig) {
  for (int i = 0; i < kSlots; ++i) {
    if (g_state[i].load(std::memory_order_acquire) == kReady) ::unlink(g_paths[i].data());
  }
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);
}

// Installs the handler for each signal still at its default action (a program or test
// framework that set its own keeps it); checked at every registration, which costs three
// sigaction calls per file written.
void InstallCleanupHandlers() {
  for (int sig : kCleanedSignals) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
    struct sigaction on {};
    on.sa_handler = RemovePendingAndReraise;
    sigemptyset(&on.sa_mask);
    ::sigaction(sig, &on, nullptr);
  }
}

// The mode a new file gets: 0666 less the umask (read once; umask can only be read by setting).
mode_t NewFileMode() {
  static const mode_t mode = [] {
    const mode_t mask = ::umask(022);
    ::umask(mask);
    return static_cast<mode_t>(0666 & ~mask);
  }();
  return mode;
}

InputError Failure(const std::string& path, const std::string& what, int error) {
  return InputError{path, 0, "", what + ": " + std::strerror(error), ""};
}

bool WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool UnderSystemTree(const std::string& path) {
  return path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0;
}

// A device, FIFO, socket or /dev/, /proc/ path: written where it is, never replaced.
Status WriteInPlace(const std::string& path, std::string_view text, bool regular) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | (regular ? O_APPEND : 0));
  if (fd < 0) return Failure(path, "cannot open file", errno);
  std::fflush(stdout);  // /dev/stdout after what the program printed
  const bool written = WriteAll(fd, text);
  const int error = errno;
  if (::close(fd) != 0 || !written)
    return Failure(path, "cannot write file", written ? errno : error);
  return Status::Ok();
}

Status ReplaceRegular(const std::string& path, std::string_view text, const struct stat* existing) {
  const std::string dir = DirectoryOf(path);
  const std::string base = path.substr(path.find_last_of('/') + 1);
  std::string tmp = dir + "/." + base + ".tmp.XXXXXX";
  const mode_t mode = existing != nullptr ? (existing->st_mode & 07777) : NewFileMode();
  const int fd = ::mkstemp(tmp.data());  // O_CREAT | O_EXCL, 0600: never follows a symlink
  if (fd < 0) return Failure(path, "cannot create file", errno);
  TemporaryFileGuard pending(tmp);
  auto fail = [&](const char* what) {
    const int error = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return Failure(path, what, error);
  };
  if (::fchmod(fd, mode) != 0) return fail("cannot set the file's mode");
  if (existing != nullptr && ::geteuid() == 0) {
    (void)!::fchown(fd, existing->st_uid, existing->st_gid);  // keep the owner where root can
  }
  if (!WriteAll(fd, text) || ::fsync(fd) != 0) return fail("cannot write file");
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    return Failure(path, "cannot write file", error);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    return Failure(path, "cannot replace file", error);
  }
  return Status::Ok();
}

}  // namespace

Status WriteFileAtomically(const std::string& path, std::string_view text) {
  if (path == "-") {
    const bool written = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
    if (std::fflush(stdout) != 0 || !written) return Failure("<stdout>", "cannot write", errno);
    return Status::Ok();
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return InputError{path, 0, "", "is a directory", ""};
    if (!S_ISREG(st.st_mode) || UnderSystemTree(path)) {
      return WriteInPlace(path, text, S_ISREG(st.st_mode));
    }
    return ReplaceRegular(path, text, &st);
  }
  if (errno != ENOENT) return Failure(path, "cannot write file", errno);
  return ReplaceRegular(path, text, nullptr);
}

Status CheckOutputPath(const std::string& path, std::string_view option) {
  if (path.empty() || path == "-") return Status::Ok();
  const std::string prefix = std::string(option) + ": ";
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Status::Failure(prefix + path + " is a directory");
    if (!S_ISREG(st.st_mode) || UnderSystemTree(path)) {
      if (::access(path.c_str(), W_OK) != 0) {
        return Status::Failure(prefix + "cannot write " + path + ": " + std::strerror(errno));
      }
      return Status::Ok();
    }
  } else if (errno != ENOENT) {
    return Status::Failure(prefix + "cannot write " + path + ": " + std::strerror(errno));
  }
  const std::string dir = DirectoryOf(path);
  struct stat d {};
  if (::stat(dir.c_str(), &d) != 0) {
    return Status::Failure(prefix + "cannot write " + path + ": the directory " + dir +
                           " does not exist");
  }
  if (!S_ISDIR(d.st_mode)) {
    return Status::Failure(prefix + "cannot write " + path + ": " + dir + " is not a directory");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return Status::Failure(prefix + "cannot write in " + dir + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

TemporaryFileGuard::TemporaryFileGuard(const std::string& path) {
  if (path.size() >= kPathBytes) return;
  InstallCleanupHandlers();
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_state[i].compare_exchange_strong(expected, kFilling)) continue;
    std::memcpy(g_paths[i].data(), path.c_str(), path.size() + 1);
    g_state[i].store(kReady, std::memory_order_release);
    slot_ = i;
    return;
  }
}

TemporaryFileGuard::~TemporaryFileGuard() {
  if (slot_ >= 0) g_state[slot_].store(kFree, std::memory_order_release);
}

}  // namespace knobsim
