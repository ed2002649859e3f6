#pragma once
// A one-line progress bar on stderr for long commands. It draws only when stderr is a terminal
// and only once the work has run for `delay` (so quick commands print nothing), and erases itself
// when done.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

namespace splitprove::cli {

class ProgressBar {
 public:
  // quiet: draws nothing.
  explicit ProgressBar(std::string what, bool quiet = false,
                       std::chrono::milliseconds delay = std::chrono::milliseconds(1500))
      : what_(std::move(what)),
        delay_(delay),
        start_(clock::now()),
        tty_(!quiet && isatty(STDERR_FILENO)) {}
  ~ProgressBar() { finish(); }

  // Thread-safe; cheap when nothing is drawn.
  void update(const char* stage, double fraction) {
    if (!tty_) return;
    std::lock_guard lk(mu_);
    auto now = clock::now();
    if (now - start_ < delay_ || now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    const int width = 30;
    int filled = int(fraction * width + 0.5);
    if (filled < 0) filled = 0;
    if (filled > width) filled = width;
    double secs = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "\r%s [%s%s] %3d%% %-40.40s %6.1fs", what_.c_str(),
                 std::string(size_t(filled), '#').c_str(), std::string(size_t(width - filled), '.').c_str(),
                 int(fraction * 100 + 0.5), stage, secs);
    std::fflush(stderr);
    drawn_ = true;
  }
  // For a line printed while the bar may be drawn: erases the bar (it is drawn again at the next
  // update) and returns "" (so it can prefix the line).
  const char* clear_line() {
    finish();
    return "";
  }
  void finish() {
    std::lock_guard lk(mu_);
    if (drawn_) std::fprintf(stderr, "\r\033[K");
    drawn_ = false;
  }

 private:
  using clock = std::chrono::steady_clock;
  std::string what_;
  std::chrono::milliseconds delay_;
  clock::time_point start_, last_{};
  bool tty_;
  bool drawn_ = false;
  std::mutex mu_;
};

}  // namespace splitprove::cli
