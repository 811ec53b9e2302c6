#include "sim/output_file.h"

#include <dirent.h>
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace knobsim {
namespace {

// A fresh directory for one test, removed (with what it holds) at the end.
struct TempDir {
  std::string path;
  TempDir() {
    std::string t = (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
    t += "/knobsim-output-XXXXXX";
    REQUIRE(::mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~TempDir() {
    for (const std::string& name : Names()) ::unlink((path + "/" + name).c_str());
    ::rmdir(path.c_str());
  }
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    if (DIR* d = ::opendir(path.c_str())) {
      while (const dirent* e = ::readdir(d)) {
        const std::string n = e->d_name;
        if (n != "." && n != "..") names.push_back(n);
      }
      ::closedir(d);
    }
    return names;
  }
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

TEST_CASE("output file: a replaced file keeps its mode, and no temporary file is left") {
  TempDir dir;
  const std::string target = dir.path + "/out.json";
  std::ofstream(target) << "old";
  REQUIRE(::chmod(target.c_str(), 0600) == 0);
  REQUIRE(WriteFileAtomically(target, "new").ok());
  CHECK(Slurp(target) == "new");
  CHECK(ModeOf(target) == 0600);
  CHECK(dir.Names() == std::vector<std::string>{"out.json"});
}

TEST_CASE("output file: a new file gets 0666 less the umask") {
  TempDir dir;
  const mode_t mask = ::umask(022);
  ::umask(mask);
  const std::string target = dir.path + "/new.json";
  REQUIRE(WriteFileAtomically(target, "x").ok());
  CHECK(ModeOf(target) == (0666 & ~mask));
}

TEST_CASE("output file: the temporary file never follows a symlink planted at a guessable name") {
  TempDir dir;
  const std::string victim = dir.path + "/victim";
  std::ofstream(victim) << "precious";
  const std::string target = dir.path + "/out.json";
  // The old predictable names: TARGET.tmp.PID, for this process.
  const std::string planted = target + ".tmp." + std::to_string(::getpid());
  REQUIRE(::symlink(victim.c_str(), planted.c_str()) == 0);
  REQUIRE(WriteFileAtomically(target, "doc").ok());
  CHECK(Slurp(victim) == "precious");
  CHECK(Slurp(target) == "doc");
}

TEST_CASE("output file: a FIFO or a character device is written in place, never replaced") {
  TempDir dir;
  const std::string fifo = dir.path + "/pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const pid_t reader = ::fork();
  REQUIRE(reader >= 0);
  if (reader == 0) {
    std::ifstream in(fifo);
    std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ::_exit(got == "through the pipe" ? 0 : 1);
  }
  CHECK(WriteFileAtomically(fifo, "through the pipe").ok());
  int status = 0;
  ::waitpid(reader, &status, 0);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  struct stat st {};
  REQUIRE(::stat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));

  CHECK(WriteFileAtomically("/dev/null", "discarded").ok());
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
}

TEST_CASE("output file: a pending temporary file is removed when SIGTERM ends the program") {
  TempDir dir;
  const std::string temp = dir.path + "/.out.json.tmp.test";
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::ofstream(temp) << "half";
    std::signal(SIGTERM, SIG_DFL);  // doctest's crash handler otherwise keeps SIGTERM
    TemporaryFileGuard guard(temp);
    ::raise(SIGTERM);
    ::_exit(0);  // not reached: the handler re-raises with the default action
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(dir.Names().empty());
}

TEST_CASE("output file: an output path is checked before a run, naming the option") {
  TempDir dir;
  struct Case {
    std::string path;
    const char* expected;  // empty: ok
  };
  const Case cases[] = {
      {"", ""},
      {"-", ""},
      {"/dev/null", ""},
      {dir.path + "/fresh.json", ""},
      {dir.path, "is a directory"},
      {dir.path + "/missing/out.json", "does not exist"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.path);
    const Status s = CheckOutputPath(c.path, "--json");
    if (*c.expected == '\0') {
      CHECK(s.ok());
    } else {
      REQUIRE_FALSE(s.ok());
      CHECK(s.ToString().find(std::string("--json: ")) == 0);
      CHECK(s.ToString().find(c.expected) != std::string::npos);
    }
  }
  const Status onto_dir = WriteFileAtomically(dir.path, "x");
  REQUIRE_FALSE(onto_dir.ok());
  CHECK(onto_dir.error().message == "is a directory");
}

}  // namespace
}  // namespace knobsim
