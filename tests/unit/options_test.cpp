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

  o = parse("on_full=spill,clock=tsc,mem=1M,chunk=4K,freq=10000,top=1000,drift_ppm=-9999", &w);
  EXPECT_TRUE(w.empty()) << joined(w);
  EXPECT_TRUE(o.spill);
  EXPECT_EQ(o.clock, "tsc");
  EXPECT_EQ(o.mem_cap, 1ull << 20);  // the smallest allowed
  EXPECT_EQ(o.chunk, 4096u);
  EXPECT_EQ(o.freq, kMaxFreq);
  EXPECT_EQ(o.top, kMaxTop);
  EXPECT_DOUBLE_EQ(o.drift_ppm, -9999);

  o = parse("report=stderr,quiet=1,overwrite=1,crash=0", &w);
  EXPECT_TRUE(w.empty()) << joined(w);
  EXPECT_TRUE(o.report);
  EXPECT_TRUE(o.report_stderr);
  EXPECT_TRUE(o.quiet);
  EXPECT_TRUE(o.overwrite);
  EXPECT_FALSE(o.crash);
  o = parse("report=file", &w);
  EXPECT_FALSE(o.report);
  o = parse("report=stdout", &w);
  EXPECT_TRUE(o.report);
  EXPECT_FALSE(o.report_stderr);
}

struct ClampCase {
  const char* text;  // option string with one value outside its safe range
  const char* used;  // the bound the warning must name ("using <used>")
};

// A value that would hurt the job is clamped to the nearest safe bound, with one line.
TEST(Options, OutOfRangeValuesAreClampedWithOneLine) {
  const ClampCase cases[] = {
      {"mem=512K", "1M"},      {"chunk=1K", "4K"},        {"chunk=2G", "1G"},
      {"freq=0", "1"},         {"freq=100001", "10000"},  {"freq=-3", "1"},
      {"top=0", "1"},          {"top=100000", "1000"},    {"drift_ppm=1e9", "10000"},
      {"skew_ns=-99999999999999", "-100000000000"},
  };
  for (const ClampCase& c : cases) {
    SCOPED_TRACE(c.text);
    std::vector<std::string> w;
    parse(c.text, &w);
    // chunk=2G is also more than a quarter of the default mem=1G: a second line says so.
    ASSERT_EQ(w.size(), std::string(c.text) == "chunk=2G" ? 2u : 1u) << joined(w);
    EXPECT_NE(w[0].find(c.text), std::string::npos) << w[0];
    EXPECT_NE(w[0].find(std::string("using ") + c.used), std::string::npos) << w[0];
  }
  std::vector<std::string> w;
  Options o = parse("freq=1000000,top=5000,mem=1K", &w);
  EXPECT_EQ(w.size(), 3u) << joined(w);
  EXPECT_EQ(o.freq, kMaxFreq);
  EXPECT_EQ(o.top, kMaxTop);
  EXPECT_EQ(o.mem_cap, kMinMem);
  // A cap larger than the node's memory is clamped below it.
  o = parse("mem=1000T", &w);
  ASSERT_EQ(w.size(), 1u) << joined(w);
  EXPECT_LT(o.mem_cap, 1000ull << 40);
  EXPECT_NE(w[0].find("memory"), std::string::npos) << w[0];
  // A chunk bigger than a quarter of the cap: said when the user chose it, silent otherwise.
  o = parse("mem=1M,chunk=1M", &w);
  ASSERT_EQ(w.size(), 1u) << joined(w);
  EXPECT_EQ(o.chunk, 256u << 10);
  o = parse("mem=1M", &w);
  EXPECT_TRUE(w.empty()) << joined(w);
  EXPECT_EQ(o.chunk, 256u << 10);
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
      {"mem=", "mem=", "1G"},
      {"mem=99999999999999999999T", "mem=99999999999999999999T", "1G"},
      {"mem=17179869184G", "mem=17179869184G", "1G"},  // 2^64 bytes
      {"mem=-1G", "mem=-1G", "1G"},
      {"mem=1.5G", "mem=1.5G", "1G"},
      {"chunk=12Q", "chunk=12Q", "1M"},
      {"on_full=maybe", "on_full=maybe", "spill"},
      {"clock=sundial", "clock=sundial", "auto"},
      {"freq=abc", "freq=abc", "1000"},
      {"freq=10x", "freq=10x", "1000"},
      {"period=0", "period=0", "frequency"},
      {"period=-5", "period=-5", "frequency"},
      {"skew_ns=abc", "skew_ns=abc", "0"},
      {"report=loud", "report=loud", "stdout"},
      {"crash=maybe", "crash=maybe", "1"},
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
  EXPECT_EQ(o.chunk, 4096u);  // clamped to the minimum
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

TEST(Options, WhatIfList) {
  // The scenario list goes on after commas; the next key=value ends it; a malformed item gets
  // one warning and is dropped.
  std::vector<std::string> w;
  Options o = parse("top=5,whatif=binvcrhs_:0.5,rank3:0.8,rank1+rank2:0,path=1", &w);
  EXPECT_TRUE(w.empty()) << joined(w);
  ASSERT_EQ(o.whatif.size(), 3u);
  EXPECT_EQ(o.whatif[0].text(), "binvcrhs_");
  EXPECT_EQ(o.whatif[0].factor, 0.5);
  EXPECT_EQ(o.whatif[1].text(), "rank3");
  EXPECT_EQ(o.whatif[1].factor, 0.8);
  EXPECT_EQ(o.whatif[2].targets, (std::vector<std::string>{"rank1", "rank2"}));
  EXPECT_EQ(o.whatif[2].factor, 0.0);
  EXPECT_TRUE(o.path);
  EXPECT_EQ(o.top, 5u);
  EXPECT_TRUE(o.whatif_on);
  o = parse("whatif=rank1:fast,whatif_top=2", &w);
  EXPECT_TRUE(o.whatif.empty());
  ASSERT_EQ(w.size(), 1u) << joined(w);
  EXPECT_NE(w[0].find("whatif=rank1:fast"), std::string::npos) << w[0];
  EXPECT_EQ(o.whatif_top, 2u);
  o = parse("whatif=0", &w);
  EXPECT_FALSE(o.whatif_on);
  // Outside a whatif list, a bare TARGET:FACTOR is an unknown key.
  o = parse("rank3:0.8", &w);
  EXPECT_TRUE(o.whatif.empty());
  EXPECT_EQ(w.size(), 1u) << joined(w);
}

TEST(Options, WhatIfQuotedActivity) {
  // The report names path activities with spaces; quoted, such a name is one target, never
  // split at its spaces, commas or colons; both quote characters work.
  const std::string act = "compute between MPI_Send at lr.c:18 and MPI_Send at lr.c:18";
  std::vector<std::string> w;
  Options o = parse(("whatif=\"" + act + "\":0.25").c_str(), &w);
  EXPECT_TRUE(w.empty()) << joined(w);
  ASSERT_EQ(o.whatif.size(), 1u);
  EXPECT_EQ(o.whatif[0].targets, std::vector<std::string>{act});
  EXPECT_EQ(o.whatif[0].factor, 0.25);
  o = parse(("top=3 whatif='" + act + "':0.5,rank1:0,'MPI_Allreduce at imb.c:17'+rank2:0.5 path=1").c_str(), &w);
  EXPECT_TRUE(w.empty()) << joined(w);
  ASSERT_EQ(o.whatif.size(), 3u);
  EXPECT_EQ(o.whatif[0].targets, std::vector<std::string>{act});
  EXPECT_EQ(o.whatif[0].factor, 0.5);
  EXPECT_EQ(o.whatif[1].text(), "rank1");
  EXPECT_EQ(o.whatif[2].targets, (std::vector<std::string>{"MPI_Allreduce at imb.c:17", "rank2"}));
  EXPECT_EQ(o.whatif[2].text(), "MPI_Allreduce at imb.c:17+rank2");
  EXPECT_EQ(o.top, 3u);
  EXPECT_TRUE(o.path);
  // Inside quotes '+', '=', ',' and the other quote character are part of the name.
  o = parse("whatif=\"a+b = c, d's\"+rank0:1e-1", &w);
  EXPECT_TRUE(w.empty()) << joined(w);
  ASSERT_EQ(o.whatif.size(), 1u);
  EXPECT_EQ(o.whatif[0].targets, (std::vector<std::string>{"a+b = c, d's", "rank0"}));
  EXPECT_DOUBLE_EQ(o.whatif[0].factor, 0.1);
  // A quoted value of another option loses its quotes; a quote inside a value stays.
  o = parse("out='my run',spill_dir=Bob's", &w);
  EXPECT_TRUE(w.empty()) << joined(w);
  EXPECT_EQ(o.out_dir, "my run");
  EXPECT_EQ(o.spill_dir, "Bob's");
}

TEST(Options, WhatIfBadQuotedItems) {
  // Each mistake is one line; the options around it still count.
  std::vector<std::string> w;
  Options o = parse("whatif=\"compute between a and b\":fast,top=4", &w);
  EXPECT_TRUE(o.whatif.empty());
  ASSERT_EQ(w.size(), 1u) << joined(w);
  EXPECT_NE(w[0].find("FACTOR"), std::string::npos) << w[0];
  EXPECT_EQ(o.top, 4u);
  o = parse("whatif=\"a b\"x:0.5,\"\":0.5,rank1+:0.5,top=6", &w);
  EXPECT_TRUE(o.whatif.empty());
  EXPECT_EQ(w.size(), 3u) << joined(w);
  EXPECT_EQ(o.top, 6u);
  // A quote left open: one line, and nothing after it is read as an option.
  o = parse("top=7,whatif=\"compute between a and b:0.5,path=1", &w);
  EXPECT_TRUE(o.whatif.empty());
  ASSERT_EQ(w.size(), 1u) << joined(w);
  EXPECT_NE(w[0].find("not closed"), std::string::npos) << w[0];
  EXPECT_EQ(o.top, 7u);
  EXPECT_FALSE(o.path);
  // The name unquoted: one line that shows the quoted form, not one per word.
  o = parse("whatif=compute between MPI_Send at lr.c:18 and MPI_Send at lr.c:18:0.25,top=8 path=1", &w);
  EXPECT_TRUE(o.whatif.empty());
  ASSERT_EQ(w.size(), 1u) << joined(w);
  EXPECT_NE(w[0].find("whatif=\"compute between MPI_Send at lr.c:18 and MPI_Send at lr.c:18\":0.25"), std::string::npos) << w[0];
  EXPECT_EQ(o.top, 8u);
  EXPECT_TRUE(o.path);
  // A bad item followed by a bare option is not swallowed.
  o = parse("whatif=rank1 dump", &w);
  EXPECT_TRUE(o.dump);
  EXPECT_EQ(w.size(), 1u) << joined(w);
}

TEST(Options, WhatIfOptionTextRoundTrips) {
  // What the report prints for a scenario parses back to the same targets and factor.
  const std::vector<std::vector<std::string>> cases = {
      {"rank3"},
      {"binvcrhs_"},
      {"compute in region extra between MPI_Allreduce at reg.c:26 and MPI_Allreduce at reg.c:26"},
      {"MPI_Send at lib.c:10 \xe2\x86\x90 app.c:20", "rank1"},
      {"say \"hi\" to a+b", "mpi"},
      {"'quoted'"}};
  for (const auto& t : cases)
    for (double f : {0.0, 0.5, 0.25, 1.0 / 3}) {
      const std::string text = whatif_option_text(t, f);
      std::vector<std::string> w;
      Options o = parse(text.c_str(), &w);
      EXPECT_TRUE(w.empty()) << text << "\n" << joined(w);
      ASSERT_EQ(o.whatif.size(), 1u) << text;
      EXPECT_EQ(o.whatif[0].targets, t) << text;
      EXPECT_NEAR(o.whatif[0].factor, f, 1e-6) << text;
    }
  EXPECT_EQ(whatif_option_text({"rank1", "rank2"}, 0), "whatif=rank1+rank2:0");
  EXPECT_EQ(whatif_option_text({"MPI_Allreduce at imb.c:17"}, 0.5), "whatif=\"MPI_Allreduce at imb.c:17\":0.5");
}
