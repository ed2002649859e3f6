// Timeline files: CSV and JSON lines round-trip exactly; bad input is refused with the file, the
// line and the column named; downsampling keeps the peak. Also: size/duration parsing errors.
#include <gtest/gtest.h>

#include <sstream>

#include "mem/timeline.hpp"
#include "mem/units.hpp"
#include "splitprove/error.hpp"

using namespace splitprove::mem;
using splitprove::Error;

namespace {

Timeline sample_timeline() {
  Timeline tl;
  tl.device_names = {"gpu0", "gpu 1"};
  tl.set_meta("model_work_bytes", "123456789");
  tl.set_meta("config", "policy=held pw=2, jobs=3 \"quoted\"");
  for (int i = 0; i < 20; ++i) {
    Sample s;
    s.t = 0.1 * i + 0.0000123;
    s.rss = 1000000 + std::uint64_t(i) * 4096;
    s.anon = s.rss - 300000;
    s.file = 300000;
    s.budget_capacity = std::uint64_t(1) << 40;
    s.budget_used = std::uint64_t(i) * 1000;
    s.budget_waiting = std::uint64_t(i % 3);
    for (std::size_t k = 0; k < kTagCount; ++k) s.books[k] = std::uint64_t(i) * 100 + k;
    s.device = {std::uint64_t(i) * 7, 18446744073709551615ull};
    tl.samples.push_back(s);
  }
  tl.events = {{0.0, "start:synthesis"},
               {0.35, std::string(kWorkStart)},
               {0.35, "label, with comma"},
               {1.5, std::string(kWorkEnd)}};
  return tl;
}

std::string error_of(const std::string& text, bool csv = true) {
  std::istringstream in(text);
  try {
    if (csv)
      read_csv(in, "run/timeline.csv");
    else
      read_jsonl(in, "run/timeline.jsonl");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

const char* kHeader =
    "kind,t_s,label,rss,anon,file,budget_capacity,budget_used,budget_waiting,book_synthesis,"
    "book_gpu,book_g2,book_finalize,book_srs,book_pinned,book_scratch,book_other\n";

}  // namespace

TEST(MemTimeline, CsvRoundTripsExactly) {
  Timeline tl = sample_timeline();
  std::ostringstream out;
  write_csv(tl, out);
  std::istringstream in(out.str());
  Timeline back = read_csv(in, "mem");
  EXPECT_EQ(back, tl);
  EXPECT_EQ(back.meta_bytes(kMetaModelWorkBytes), 123456789u);
  EXPECT_EQ(back.first_event(kWorkStart), 0.35);
}

TEST(MemTimeline, JsonLinesRoundTripsExactly) {
  Timeline tl = sample_timeline();
  std::ostringstream out;
  write_jsonl(tl, out);
  std::istringstream in(out.str());
  EXPECT_EQ(read_jsonl(in, "mem"), tl);
}

TEST(MemTimeline, CsvErrorsNameFileLineAndColumn) {
  std::string good_row = "sample,0.5,,100,60,40,1000,10,0,1,2,3,4,5,6,7,8\n";
  EXPECT_EQ(error_of(std::string(kHeader) + good_row), "(no error)");
  EXPECT_EQ(error_of(std::string(kHeader) + good_row +
                     "sample,0.6,,100,60,forty,1000,10,0,1,2,3,4,5,6,7,8\n"),
            "run/timeline.csv:3: column 'file': 'forty' is not an unsigned integer (bytes)");
  EXPECT_EQ(error_of(std::string(kHeader) + "sample,0.6,,100,60\n"),
            "run/timeline.csv:2: sample row has 5 fields, the header has 17");
  EXPECT_EQ(error_of(std::string(kHeader) + "sampel,0.6\n"),
            "run/timeline.csv:2: unknown row kind 'sampel' (expected sample, event or meta)");
  EXPECT_EQ(error_of(std::string(kHeader) + "event,abc,x\n"),
            "run/timeline.csv:2: column 't_s': 'abc' is not a time in seconds (a number >= 0)");
  EXPECT_EQ(error_of(std::string(kHeader) + good_row +
                     "sample,0.4,,100,60,40,1000,10,0,1,2,3,4,5,6,7,8\n"),
            "run/timeline.csv:3: sample time 0.4 goes backwards (after 0.5)");
  EXPECT_EQ(error_of("# comment\nkind,t,label\n"),
            "run/timeline.csv:2: header: expected column 't_s' at position 2, found 't' (not a "
            "splitprove memory timeline?)");
  EXPECT_EQ(error_of(std::string(kHeader).substr(0, std::string(kHeader).size() - 1) + ",gpu0\n"),
            "run/timeline.csv:1: header: column 18 'gpu0': expected 'dev:<name>'");
  EXPECT_EQ(error_of(std::string(kHeader) + "event,1,\"unterminated\n"),
            "run/timeline.csv:2: unterminated quoted field");
  EXPECT_EQ(error_of(""), "run/timeline.csv: empty file: no header line");
  EXPECT_EQ(error_of(std::string(kHeader) + "meta,,no-equals-sign\n"),
            "run/timeline.csv:2: meta row: expected 'meta,,<key>=<value>'");
}

TEST(MemTimeline, JsonLinesErrorsNameFileLineAndField) {
  std::string head = R"({"kind":"timeline","version":1,"devices":[]})"
                     "\n";
  EXPECT_EQ(error_of(head + "{not json\n", false), "run/timeline.jsonl:2: not a JSON object");
  EXPECT_EQ(error_of(R"({"kind":"sample","t":1})"
                     "\n",
                     false),
            "run/timeline.jsonl:1: expected the {\"kind\":\"timeline\"} header line first");
  EXPECT_EQ(error_of(head + R"({"kind":"sample","t":1,"rss":-5})"
                            "\n",
                     false),
            "run/timeline.jsonl:2: field 'rss': -5 is not an unsigned integer (bytes)");
  EXPECT_EQ(error_of(head + R"({"kind":"sample","t":1,"rss":5,"anon":1,"file":1,"budget":{}})"
                            "\n",
                     false),
            "run/timeline.jsonl:2: missing field 'budget.capacity'");
}

TEST(MemTimeline, LoadTimelineNamesAMissingFile) {
  try {
    load_timeline("/nonexistent/dir/t.csv");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/dir/t.csv: cannot open: No such file or directory");
  }
}

TEST(MemTimeline, DownsampleKeepsThePeakAndTheEvents) {
  Timeline tl = sample_timeline();
  tl.samples[13].rss = 99999999;
  Timeline d = downsample(tl, 4);
  EXPECT_LE(d.samples.size(), 4u);
  EXPECT_GE(d.samples.size(), 3u);
  std::uint64_t peak = 0;
  for (auto& s : d.samples) peak = std::max(peak, s.rss);
  EXPECT_EQ(peak, 99999999u);
  EXPECT_EQ(d.events, tl.events);
  EXPECT_EQ(downsample(tl, 100), tl);
}

TEST(MemUnits, SizesAndDurationsParseAndErrorsNameTheOption) {
  EXPECT_EQ(parse_size("4096", "--x"), 4096u);
  EXPECT_EQ(parse_size("256MiB", "--x"), 256 * MiB);
  EXPECT_EQ(parse_size("1.5 GiB", "--x"), 3 * GiB / 2);
  EXPECT_EQ(parse_size("2t", "--x"), 2 * TiB);
  EXPECT_EQ(parse_duration("100ms", "--i"), std::chrono::milliseconds(100));
  EXPECT_EQ(parse_duration("1.5s", "--i"), std::chrono::milliseconds(1500));
  auto err = [](auto f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(err([] { parse_size("12X", "--budget"); }),
            "--budget: '12X': unknown unit 'X' (use B, KiB, MiB, GiB or TiB)");
  EXPECT_EQ(err([] { parse_size("GiB", "--budget"); }),
            "--budget: 'GiB': expected a number followed by an optional unit");
  EXPECT_EQ(err([] { parse_duration("3 fortnights", "--interval"); }),
            "--interval: '3 fortnights': unknown unit 'fortnights' (use s, ms, us or ns)");
  EXPECT_EQ(format_bytes(1536 * MiB), "1.50 GiB");
  EXPECT_EQ(format_bytes(100), "100 B");
  EXPECT_EQ(format_signed_bytes(-std::int64_t(2 * MiB)), "-2.00 MiB");
}

TEST(MemTimeline, DrainedPartStopsAtAnOpenWorkWindow) {
  Timeline tl;
  for (int i = 0; i < 10; ++i) {
    Sample s;
    s.t = i;
    s.rss = 100 + std::uint64_t(i);
    tl.samples.push_back(s);
  }
  EXPECT_FALSE(drained_part(tl)) << "no work yet";
  tl.events = {{1.5, std::string(kWorkStart)}};
  EXPECT_FALSE(drained_part(tl)) << "working since the first job";
  tl.events.push_back({3.5, std::string(kWorkEnd)});
  ASSERT_TRUE(drained_part(tl));
  EXPECT_EQ(drained_part(tl)->samples.size(), 10u) << "idle now: all of it";
  tl.events.push_back({6.5, std::string(kWorkStart)});
  tl.events.push_back({6.6, "job_start:7"});
  const auto d = drained_part(tl);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->samples.size(), 7u) << "the samples of the open window are not judged";
  EXPECT_EQ(d->samples.back().t, 6.0);
  EXPECT_EQ(d->last_event(kWorkStart), 1.5);
  EXPECT_EQ(d->last_event(kWorkEnd), 3.5);
  EXPECT_FALSE(d->last_event("job_start:7"));
}
