// util/output (atomic output files, groups, the output check) and util/limits (bounded reads,
// thread limits).
#include <gtest/gtest.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "splitprove/error.hpp"
#include "util/limits.hpp"
#include "util/output.hpp"
#include "util/xml.hpp"

namespace fs = std::filesystem;
using splitprove::Error;
namespace util = splitprove::util;

namespace {

class TempDir {
 public:
  TempDir() {
    std::string t = (fs::temp_directory_path() / "splitprove-output-XXXXXX").string();
    if (!::mkdtemp(t.data())) throw std::runtime_error("mkdtemp");
    path_ = t;
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  const fs::path& path() const { return path_; }
  // Every entry of the directory (hidden ones too).
  std::vector<std::string> entries() const {
    std::vector<std::string> v;
    for (const auto& e : fs::directory_iterator(path_)) v.push_back(e.path().filename().string());
    std::sort(v.begin(), v.end());
    return v;
  }

 private:
  fs::path path_;
};

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
void put(const std::string& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(AtomicFile, CommitReplacesTheTargetAndLeavesNoTemporary) {
  TempDir d;
  put(d / "out.json", "old");
  {
    util::AtomicFile f(d / "out.json");
    f.write("new ");
    f.write("content");
    EXPECT_EQ(slurp(d / "out.json"), "old");  // untouched until commit
    f.commit();
    EXPECT_EQ(f.bytes_written(), 11u);
  }
  EXPECT_EQ(slurp(d / "out.json"), "new content");
  EXPECT_EQ(d.entries(), std::vector<std::string>{"out.json"});
}

TEST(AtomicFile, WithoutCommitTheTargetStaysAndTheTemporaryGoes) {
  TempDir d;
  put(d / "out.json", "old");
  {
    util::AtomicFile f(d / "out.json");
    f.write("half a proof");
    EXPECT_EQ(d.entries().size(), 2u);  // the target and the temporary
  }
  EXPECT_EQ(slurp(d / "out.json"), "old");
  EXPECT_EQ(d.entries(), std::vector<std::string>{"out.json"});
  {
    util::AtomicFile f(d / "fresh.json");
    f.write("x");
    f.abandon();
    f.abandon();  // idempotent
  }
  EXPECT_FALSE(fs::exists(d / "fresh.json"));
}

TEST(AtomicFile, WritesThroughASymbolicLinkAndKeepsIt) {
  TempDir d;
  fs::create_directory(d / "real");
  put(d / "real/key.zkey", "old");
  fs::create_symlink(d / "real/key.zkey", d / "link.zkey");
  util::write_file_atomic(d / "link.zkey", std::string_view("new"));
  EXPECT_TRUE(fs::is_symlink(d / "link.zkey"));
  EXPECT_EQ(slurp(d / "real/key.zkey"), "new");
}

TEST(AtomicFile, RefusesDirectoriesDevicesAndFifos) {
  TempDir d;
  fs::create_directory(d / "dir");
  EXPECT_NE(error_of([&] { util::AtomicFile f(d / "dir"); }).find("is a directory"),
            std::string::npos);
  ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
  EXPECT_NE(error_of([&] { util::AtomicFile f(d / "fifo"); }).find("not a regular file"),
            std::string::npos);
  EXPECT_TRUE(fs::is_fifo(d / "fifo"));
  EXPECT_NE(error_of([&] { util::AtomicFile f("/dev/null"); }).find("not a regular file"),
            std::string::npos);
  EXPECT_NE(error_of([&] { util::AtomicFile f(d / "missing/out.json"); }).find("cannot create"),
            std::string::npos);
}

// A reader that mapped the old file keeps reading it whole while a writer replaces it (an
// in-place rewrite would truncate it under the reader: SIGBUS).
TEST(AtomicFile, AMappedReaderKeepsTheOldContent) {
  TempDir d;
  const std::string old(1 << 16, 'a');
  put(d / "key.zkey", old);
  const int fd = ::open((d / "key.zkey").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  void* p = ::mmap(nullptr, old.size(), PROT_READ, MAP_PRIVATE, fd, 0);
  ASSERT_NE(p, MAP_FAILED);
  ::close(fd);
  util::write_file_atomic(d / "key.zkey", std::string_view("b"));
  EXPECT_EQ(std::string(static_cast<const char*>(p), old.size()), old);
  ::munmap(p, old.size());
  EXPECT_EQ(slurp(d / "key.zkey"), "b");
}

TEST(AtomicFile, AWriteErrorNamesTheTargetAndLeavesItAlone) {
  // A file-size limit stands for a full disk: the write fails with EFBIG.
  TempDir d;
  put(d / "out.json", "old");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl {
      4096, 4096
    };
    ::setrlimit(RLIMIT_FSIZE, &rl);
    const std::string msg = error_of([&] {
      util::AtomicFile f(d / "out.json");
      f.write(std::string(1 << 16, 'x'));
      f.commit();
    });
    ::_exit(msg.find("out.json: write failed") != std::string::npos ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(slurp(d / "out.json"), "old");
  EXPECT_EQ(d.entries(), std::vector<std::string>{"out.json"});
}

TEST(CommitTogether, AGroupLandsWhole) {
  TempDir d;
  put(d / "public.json", "old public");
  put(d / "proof.json", "old proof");
  util::AtomicFile pub(d / "public.json"), proof(d / "proof.json");
  pub.write("public 1");
  proof.write("proof 1");
  util::AtomicFile* group[] = {&pub, &proof};
  util::commit_together(group);
  EXPECT_EQ(slurp(d / "public.json"), "public 1");
  EXPECT_EQ(slurp(d / "proof.json"), "proof 1");
  EXPECT_EQ(d.entries(), (std::vector<std::string>{"proof.json", "public.json"}));
}

// Two writers committing groups to the same paths: every state seen afterwards is one writer's
// whole group (the proof names the same round and writer as its public signals).
TEST(CommitTogether, RacingWritersNeverMixTheirGroups) {
  TempDir d;
  auto writer = [&](char who) {
    for (int i = 0; i < 100; ++i) {
      const std::string tag = std::string(1, who) + std::to_string(i);
      util::AtomicFile pub(d / "public.json"), proof(d / "proof.json");
      pub.write("public " + tag);
      proof.write("proof " + tag);
      util::AtomicFile* group[] = {&pub, &proof};
      util::commit_together(group);
      // A snapshot of the directory: read under its lock, as commit_together takes it (two
      // unlocked reads could straddle another writer's whole commit). Whenever both files are
      // there, they are one writer's group.
      const int dfd = ::open(d.path().c_str(), O_RDONLY | O_DIRECTORY);
      ASSERT_GE(dfd, 0);
      ::flock(dfd, LOCK_EX);
      const std::string p = slurp(d / "proof.json"), s = slurp(d / "public.json");
      ::close(dfd);
      if (!p.empty() && !s.empty()) ASSERT_EQ(p.substr(6), s.substr(7)) << p << " / " << s;
    }
  };
  std::thread a(writer, 'a'), b(writer, 'b');
  a.join();
  b.join();
  EXPECT_EQ(slurp(d / "proof.json").substr(6), slurp(d / "public.json").substr(7));
  EXPECT_EQ(d.entries(), (std::vector<std::string>{"proof.json", "public.json"}));
}

TEST(OutputCheck, RefusesAnOutputThatIsAnInput) {
  TempDir d;
  put(d / "k.zkey", "key");
  put(d / "w.wtns", "witness");
  fs::create_symlink(d / "k.zkey", d / "sym.json");
  fs::create_hard_link(d / "w.wtns", d / "hard.json");
  auto msg = [&](const std::string& out) {
    return error_of([&] {
      util::OutputCheck("prove").input(d / "k.zkey").input(d / "w.wtns").output(out).check();
    });
  };
  EXPECT_NE(msg(d / "k.zkey").find("is the same file as the input"), std::string::npos);
  EXPECT_NE(msg(d / "sym.json").find("is the same file as the input"), std::string::npos);
  EXPECT_NE(msg(d / "hard.json").find("is the same file as the input"), std::string::npos);
  EXPECT_NE(msg(d.path().string() + "/./k.zkey").find("same file"), std::string::npos);
  EXPECT_NE(msg(d / "k.zkey/proof.json").find("inside the input"), std::string::npos);
  EXPECT_NE(msg(d / "nowhere/proof.json").find("does not exist"), std::string::npos);
  EXPECT_EQ(msg(d / "proof.json"), "");
  EXPECT_EQ(slurp(d / "k.zkey"), "key");
  EXPECT_EQ(slurp(d / "w.wtns"), "witness");
  EXPECT_FALSE(fs::exists(d / "proof.json"));  // checking writes nothing
}

TEST(OutputCheck, RefusesTwoOutputsOfOneFileAndBadDirectories) {
  TempDir d;
  put(d / "in", "x");
  put(d / "p.json", "x");
  fs::create_hard_link(d / "p.json", d / "q.json");
  auto msg = [&](auto&& setup) {
    return error_of([&] {
      util::OutputCheck c("prove");
      c.input(d / "in");
      setup(c);
      c.check();
    });
  };
  EXPECT_NE(msg([&](auto& c) { c.output(d / "a.json").output(d / "a.json"); }).find("same file"),
            std::string::npos);
  EXPECT_NE(msg([&](auto& c) { c.output(d / "p.json").output(d / "q.json"); }).find("same file"),
            std::string::npos);
  EXPECT_NE(msg([&](auto& c) { c.output_dir(d / "in"); }).find("same file"), std::string::npos);
  put(d / "file", "x");
  EXPECT_NE(msg([&](auto& c) { c.output_dir(d / "file"); }).find("not a directory"),
            std::string::npos);
  EXPECT_EQ(msg([&](auto& c) { c.output_dir(d / "new/dir"); }), "");
  EXPECT_TRUE(fs::is_directory(d / "new/dir"));
  fs::create_directory(d / "adir");
  EXPECT_NE(msg([&](auto& c) { c.output(d / "adir"); }).find("is a directory"), std::string::npos);
}

TEST(OutputCheck, RemovesTemporariesOfProcessesThatAreGone) {
  TempDir d;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);  // its pid is free now
  const std::string dead = "." + std::string("proof.json.splitprove-") + std::to_string(child) + "-0.tmp";
  const std::string alive = ".proof.json.splitprove-" + std::to_string(::getppid()) + "-0.tmp";
  put(d / dead, "partial");
  put(d / alive, "being written");
  put(d / ".other.tmp", "not ours");
  util::OutputCheck("prove").output(d / "proof.json").check();
  EXPECT_FALSE(fs::exists(d / dead));
  EXPECT_TRUE(fs::exists(d / alive));
  EXPECT_TRUE(fs::exists(d / ".other.tmp"));
}

TEST(Limits, ReadFileBoundedRefusesWhatIsTooLargeOrNotAFile) {
  TempDir d;
  put(d / "small", "12345");
  EXPECT_EQ(util::read_file_bounded(d / "small", 5), "12345");
  EXPECT_NE(error_of([&] { util::read_file_bounded(d / "small", 4); }).find("more than the 4"),
            std::string::npos);
  EXPECT_NE(error_of([&] { util::read_file_bounded(d.path().string(), 4); })
                .find("not a regular file"),
            std::string::npos);
  EXPECT_NE(error_of([&] { util::read_file_bounded("/dev/zero", 1 << 20); })
                .find("not a regular file"),
            std::string::npos);
  EXPECT_NE(error_of([&] { util::read_file_bounded(d / "missing", 4); }).find("cannot open"),
            std::string::npos);
  // A pipe is read up to the cap, then refused.
  ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
  std::thread w([&] {
    std::ofstream f(d / "fifo");
    f << std::string(100, 'z');
  });
  EXPECT_NE(error_of([&] { util::read_file_bounded(d / "fifo", 10); }).find("more than the 10"),
            std::string::npos);
  w.join();
}

TEST(Limits, ThreadCountsAreBoundedByTheMachine) {
  EXPECT_GE(util::max_threads(), 32u);
  EXPECT_NO_THROW(util::check_thread_count(util::max_threads(), "--synth-workers"));
  const std::string msg =
      error_of([] { util::check_thread_count(100000, "--synth-workers"); });
  EXPECT_NE(msg.find("--synth-workers = 100000: at most"), std::string::npos) << msg;
  EXPECT_GT(util::available_memory(), 0u);
}

TEST(XmlEscape, ReplacesTheFiveMarkupCharactersAndKeepsTheRest) {
  EXPECT_EQ(splitprove::util::xml_escape(R"(a<b>&"c"'d' é)"), "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos; é");
  EXPECT_EQ(splitprove::util::xml_escape(""), "");
}
