// LIBCPATH_OPTIONS parsing (cpath::parse_options, cpath::parse_size, src/options.h): good
// values, bad values (one warning naming the option and the default, default kept), unknown
// keys, separators, sizes with suffixes and overflow.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "options.h"

using namespace cpath;

namespace {

Options parse(const char* text, std::vector<std::string>* w) {
  w->clear();
  return parse_options(text, w);
}

std::string joined(const std::vector<std::string>& w) {
  std::string s;
  for (const auto& x : w) s += x + "\n";
  return s;
}

}  // namespace

TEST(Options, EnvironmentVariableName) {
  // "CPATH" alone is a compiler include-path variable; ours must be something else.
  EXPECT_STREQ(kOptionsEnv, "LIBCPATH_OPTIONS");
}

TEST(Options, Defaults) {
  std::vector<std::string> w;
  for (const char* text : {static_cast<const char*>(nullptr), "", " , ,\t\n"}) {
    Options o = parse(text, &w);
    EXPECT_TRUE(w.empty()) << joined(w);
    EXPECT_EQ(o.out_dir, "");
    EXPECT_FALSE(o.dump);
    EXPECT_EQ(o.mem_cap, 1ull << 30);
    EXPECT_TRUE(o.spill);
    EXPECT_EQ(o.chunk, 1ull << 20);
    EXPECT_EQ(o.clock, "auto");
    EXPECT_TRUE(o.analysis);
    EXPECT_TRUE(o.report);
    EXPECT_TRUE(o.sample);
    EXPECT_EQ(o.freq, 1000u);
    EXPECT_EQ(o.period, 0u);
    EXPECT_EQ(o.top, 10u);
    EXPECT_EQ(o.skew_ns, 0);
    EXPECT_EQ(o.drift_ppm, 0.0);
    EXPECT_FALSE(o.verbose);
  }
  // no warnings vector: still parses, never crashes
  Options o = parse_options("mem=lots,foo=1,dump=1", nullptr);
  EXPECT_TRUE(o.dump);
  EXPECT_EQ(o.mem_cap, 1ull << 30);
}

TEST(Options, GoodValues) {
  std::vector<std::string> w;
  Options o = parse(
      "out=run1,dump=1,mem=256M,on_full=stop,spill_dir=/scratch/x,chunk=64K,clock=monotonic,analysis=0,"
      "report=no,sample=off,events=cycles+instructions,freq=500,period=100000,callchain=yes,top=5,path=true,"
      "matches=1,skew_ns=-1000,drift_ppm=12.5,verbose=on",
      &w);
  EXPECT_TRUE(w.empty()) << joined(w);
  EXPECT_EQ(o.out_dir, "run1");
  EXPECT_TRUE(o.dump);
  EXPECT_EQ(o.mem_cap, 256ull << 20);
  EXPECT_FALSE(o.spill);
  EXPECT_EQ(o.spill_dir, "/scratch/x");
  EXPECT_EQ(o.chunk, 64ull << 10);
  EXPECT_EQ(o.clock, "monotonic");
  EXPECT_FALSE(o.analysis);
  EXPECT_FALSE(o.report);
  EXPECT_FALSE(o.sample);
  EXPECT_EQ(o.events, "cycles+instructions");
  EXPECT_EQ(o.freq, 500u);
  EXPECT_EQ(o.period, 100000u);
  EXPECT_TRUE(o.callchain);
  EXPECT_EQ(o.top, 5u);
  EXPECT_TRUE(o.path);
  EXPECT_TRUE(o.matches);
  EXPECT_EQ(o.skew_ns, -1000);
  EXPECT_DOUBLE_EQ(o.drift_ppm, 12.5);
  EXPECT_TRUE(o.verbose);

  o = parse("on_full=spill,clock=tsc,mem=1M,chunk=4K,freq=100000,top=100000,drift_ppm=-9999", &w);
  EXPECT_TRUE(w.empty()) << joined(w);
  EXPECT_TRUE(o.spill);
  EXPECT_EQ(o.clock, "tsc");
  EXPECT_EQ(o.mem_cap, 1ull << 20);  // the smallest allowed
  EXPECT_EQ(o.chunk, 4096u);
  EXPECT_EQ(o.freq, 100000u);
  EXPECT_EQ(o.top, 100000u);
  EXPECT_DOUBLE_EQ(o.drift_ppm, -9999);
}

TEST(Options, Separators) {
  std::vector<std::string> w;
  // commas, spaces, tabs, newlines, runs of them, leading and trailing
  Options o = parse(" ,dump=1  mem=2G\tchunk=128K\n,,top=3 ,\t", &w);
  EXPECT_TRUE(w.empty()) << joined(w);
  EXPECT_TRUE(o.dump);
  EXPECT_EQ(o.mem_cap, 2ull << 30);
  EXPECT_EQ(o.chunk, 128ull << 10);
  EXPECT_EQ(o.top, 3u);
  // a key without '=' means "=1"
  o = parse("dump verbose", &w);
  EXPECT_TRUE(w.empty()) << joined(w);
  EXPECT_TRUE(o.dump);
  EXPECT_TRUE(o.verbose);
  // '=' inside a value is kept
  o = parse("out=a=b,events=x", &w);
  EXPECT_TRUE(w.empty()) << joined(w);
  EXPECT_EQ(o.out_dir, "a=b");
  // a later value wins
  o = parse("top=3,top=4", &w);
  EXPECT_EQ(o.top, 4u);
}

struct BadCase {
  const char* text;     // option string with exactly one problem
  const char* key;      // the option the warning must name
  const char* dflt;     // the default the warning must name ("using <dflt>")
};

// One bad value: exactly one warning line, naming the option, its value and the default
// used; the value stays at the default.
TEST(Options, BadValuesWarnOnceAndKeepDefault) {
  const Options d;
  const BadCase cases[] = {
      {"mem=lots", "mem=lots", "1G"},
      {"mem=512K", "mem=512K", "1G"},  // below the 1M minimum
      {"mem=", "mem=", "1G"},
      {"mem=99999999999999999999T", "mem=99999999999999999999T", "1G"},
      {"mem=17179869184G", "mem=17179869184G", "1G"},  // 2^64 bytes
      {"mem=-1G", "mem=-1G", "1G"},
      {"mem=1.5G", "mem=1.5G", "1G"},
      {"chunk=1K", "chunk=1K", "1M"},
      {"chunk=2G", "chunk=2G", "1M"},
      {"chunk=12Q", "chunk=12Q", "1M"},
      {"on_full=maybe", "on_full=maybe", "spill"},
      {"clock=sundial", "clock=sundial", "auto"},
      {"freq=0", "freq=0", "1000"},
      {"freq=100001", "freq=100001", "1000"},
      {"freq=abc", "freq=abc", "1000"},
      {"freq=10x", "freq=10x", "1000"},
      {"period=0", "period=0", "frequency"},
      {"period=-5", "period=-5", "frequency"},
      {"top=0", "top=0", "10"},
      {"skew_ns=abc", "skew_ns=abc", "0"},
      {"drift_ppm=1e9", "drift_ppm=1e9", "0"},
      {"drift_ppm=nan", "drift_ppm=nan", "0"},
      {"dump=2", "dump=2", "0"},
      {"analysis=maybe", "analysis=maybe", "1"},
      {"sample=", "sample=", "1"},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.text);
    std::vector<std::string> w;
    Options o = parse(c.text, &w);
    ASSERT_EQ(w.size(), 1u) << joined(w);
    EXPECT_NE(w[0].find(c.key), std::string::npos) << w[0];
    EXPECT_NE(w[0].find(std::string("using ") + c.dflt), std::string::npos) << w[0];
    EXPECT_EQ(w[0].find('\n'), std::string::npos) << "one line";
    EXPECT_EQ(o.mem_cap, d.mem_cap);
    EXPECT_EQ(o.chunk, d.chunk);
    EXPECT_EQ(o.spill, d.spill);
    EXPECT_EQ(o.clock, d.clock);
    EXPECT_EQ(o.freq, d.freq);
    EXPECT_EQ(o.period, d.period);
    EXPECT_EQ(o.top, d.top);
    EXPECT_EQ(o.skew_ns, d.skew_ns);
    EXPECT_EQ(o.drift_ppm, d.drift_ppm);
    EXPECT_EQ(o.dump, d.dump);
    EXPECT_EQ(o.analysis, d.analysis);
    EXPECT_EQ(o.sample, d.sample);
  }
}

// Several problems: one warning each, in order; good options around them still apply.
TEST(Options, SeveralProblemsAndUnknownKeys) {
  std::vector<std::string> w;
  Options o = parse("mem=lots,foo=1,dump=1,chunk=1K bogus,top=7", &w);
  ASSERT_EQ(w.size(), 4u) << joined(w);
  EXPECT_NE(w[0].find("mem=lots"), std::string::npos) << w[0];
  EXPECT_NE(w[1].find("'foo'"), std::string::npos) << w[1];
  EXPECT_NE(w[2].find("chunk=1K"), std::string::npos) << w[2];
  EXPECT_NE(w[3].find("'bogus'"), std::string::npos) << w[3];
  // keys are case-sensitive: "Dump" is unknown too
  std::vector<std::string> w2;
  parse("Dump=1", &w2);
  ASSERT_EQ(w2.size(), 1u);
  EXPECT_NE(w2[0].find("'Dump'"), std::string::npos) << w2[0];
  EXPECT_TRUE(o.dump);
  EXPECT_EQ(o.top, 7u);
  EXPECT_EQ(o.mem_cap, 1ull << 30);
  EXPECT_EQ(o.chunk, 1ull << 20);
  for (const auto& line : w) { EXPECT_EQ(line.find('\n'), std::string::npos); }
}

// When a key is given twice and the second value is bad, the earlier good value is kept and
// the warning names it ("mem=2G,mem=lots" keeps 2 GiB and says "using 2G").
TEST(Options, WarningNamesTheValueActuallyUsed) {
  std::vector<std::string> w;
  Options o = parse("mem=2G,mem=lots", &w);
  ASSERT_EQ(w.size(), 1u);
  const bool kept_2g = o.mem_cap == (2ull << 30);
  EXPECT_NE(w[0].find(kept_2g ? "using 2G" : "using 1G"), std::string::npos) << w[0] << " but mem_cap=" << o.mem_cap;
}

TEST(ParseSize, Suffixes) {
  uint64_t v = 0;
  struct {
    const char* s;
    uint64_t want;
  } good[] = {{"0", 0},
              {"4096", 4096},
              {"1B", 1},
              {"7b", 7},
              {"64K", 64ull << 10},
              {"64k", 64ull << 10},
              {"64KiB", 64ull << 10},
              {"512M", 512ull << 20},
              {"512m", 512ull << 20},
              {"3MiB", 3ull << 20},
              {"1G", 1ull << 30},
              {"2GiB", 2ull << 30},
              {"2T", 2ull << 40},
              {"16777215T", 16777215ull << 40},
              {"18446744073709551615", ~0ull}};
  for (const auto& g : good) {
    v = 12345;
    EXPECT_TRUE(parse_size(g.s, &v)) << g.s;
    EXPECT_EQ(v, g.want) << g.s;
  }
}

TEST(ParseSize, BadAndOverflow) {
  for (const char* s : {"", "K", "G1", "-1", "-0", "1.5G", "12Q", "1KB", "1 K", "0x10", "18446744073709551616",
                        "16777216T", "17179869184G", "17592186044416M", "99999999999999999999999"}) {
    uint64_t v = 777;
    EXPECT_FALSE(parse_size(s, &v)) << s << " -> " << v;
    EXPECT_EQ(v, 777u) << "output untouched on failure: " << s;
  }
}
