// The one way knobsim writes an output file (docs/limits.md, "Output files").
//
// A regular file (or a path that does not exist yet) is replaced atomically: the text goes to a
// temporary file created with mkstemp in the target's directory (O_EXCL: a symlink planted at a
// guessable name is never followed), is flushed to disk, takes the mode of the file it replaces
// (a 0600 file stays 0600; a new file gets 0666 less the umask), and is renamed over the target.
// A pending temporary file is removed when SIGINT, SIGTERM or SIGHUP ends the program: a small
// registry of pending paths is unlinked by a signal handler that uses only async-signal-safe
// calls, which then re-raises the signal with its default action.
//
// `-` is standard output, and a special file (a character device such as /dev/null or a tty, a
// FIFO, a socket, or anything under /dev/ or /proc/ such as /dev/stdout) is written in place:
// replacing it would turn a device or a pipe into a regular file.
//
// CheckOutputPath lets a command refuse an output it could not write before it simulates
// anything.
#pragma once

#include <string>
#include <string_view>

#include "sim/input_error.h"

namespace knobsim {

// Writes `text` to `path` as the header says; the error names `path` and the reason.
Status WriteFileAtomically(const std::string& path, std::string_view text);

// Whether WriteFileAtomically(path, ...) can work, checked before a long run: ok for `-`, a
// special file that is writable, or a file (existing or not) whose directory exists and is
// writable; "OPTION: PATH is a directory", "... the directory D does not exist", "... cannot
// write in D: <reason>" otherwise. Ok for an empty path (the option was not given).
Status CheckOutputPath(const std::string& path, std::string_view option);

// Registers `path` as a temporary file being written for the lifetime of the guard: SIGINT,
// SIGTERM or SIGHUP meanwhile unlinks it before the program ends (the handler is installed then
// for each signal still at its default action). WriteFileAtomically holds one per
// temporary file; at most 64 are registered at once (beyond, a write goes unguarded).
class TemporaryFileGuard {
 public:
  explicit TemporaryFileGuard(const std::string& path);
  ~TemporaryFileGuard();
  TemporaryFileGuard(const TemporaryFileGuard&) = delete;
  TemporaryFileGuard& operator=(const TemporaryFileGuard&) = delete;

 private:
  int slot_ = -1;
};

}  // namespace knobsim
