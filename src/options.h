// libcpath options: one environment variable, LIBCPATH_OPTIONS, holding key=value pairs
// separated by commas or white space, e.g.
//   LIBCPATH_OPTIONS="out=run1,dump=1,mem=256M"
// A value (or a what-if target) may be quoted, "..." or '...', where it holds separators: the
// report names path activities with spaces ("compute between MPI_Send at lr.c:18 and ...").
// A value that does not parse gives one warning line and the default; a value outside the safe
// range is clamped to it, with one line; an unknown key gives one warning line.
// docs/options.md lists every option.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace cpath {

constexpr const char* kOptionsEnv = "LIBCPATH_OPTIONS";

// Safe ranges. Sampling faster than kMaxFreq per thread costs the application more than the
// tool is worth; a larger table than kMaxTop makes the finalize-time reductions heavy.
constexpr uint32_t kMaxFreq = 10000;
constexpr uint32_t kMaxTop = 1000;
constexpr uint64_t kMinMem = 1ull << 20;
constexpr uint64_t kMinChunk = 4096, kMaxChunk = 1ull << 30;
// walk=: how the critical path is extracted (critical_path_walk.h).
enum class WalkMode : int { Jump = 0, Sequential = 1, Check = 2 };

// One whatif= item, TARGET[+TARGET...]:FACTOR: the targets scaled together, quotes removed.
struct WhatIfItem {
  std::vector<std::string> targets;
  double factor = 1;
  std::string text() const;  // the targets joined with '+', as the report's row names them
};

struct Options {
  std::string out_dir;             // out=   report directory ("" = cpath-<app>-<ranks>p-<time>)
  bool dump = false;               // dump=  write each rank's trace file
  uint64_t mem_cap = 1ull << 30;   // mem=   trace memory per rank
  uint64_t analysis_mem = 0;       // analysis_mem= memory the finalize analysis may use per rank (0 = auto)
  bool spill = true;               // on_full=spill|stop
  std::string spill_dir;           // spill_dir= ("" = $TMPDIR or /tmp)
  uint64_t chunk = 1ull << 20;     // chunk= trace chunk size
  std::string clock = "auto";      // clock=auto|tsc|monotonic
  // poll_merge= ns: an unsuccessful poll (Test family, Iprobe) begun at most this long after the
  // thread's last poll ended, and repeating its previous record or a cycle of its last records,
  // is merged (0: every poll is a record).
  uint64_t poll_merge_ns = 5000;
  // poll_cpu= ns: a poll ending at least this long after the thread's last CPU-time read reads
  // it again (rule 5 tells a descheduled polling thread from a working one; 0: never).
  uint64_t poll_cpu_ns = 1000000;
  bool analysis = true;            // analysis= critical-path analysis at finalize
  bool report = true;              // report= print the text report on rank 0
  bool report_stderr = false;      // report=stderr: print it on stderr instead of stdout
  bool quiet = false;              // quiet= no informational lines on stderr (test harnesses)
  bool overwrite = false;          // overwrite= reuse an existing out= directory (old run's files removed)
  bool crash = true;               // crash= write traces when the job ends without MPI_Finalize
  bool sample = true;              // sample= PMU sampling
  std::string events;              // events= e.g. cycles+instructions ("" = default)
  uint32_t freq = 1000;            // freq=  samples per second
  uint64_t period = 0;             // period= sample period in events (overrides freq)
  std::string sampler = "auto";    // sampler=auto|perf|timer (pmu/sampler.h Mechanism)
  bool callchain = false;          // callchain=
  uint32_t top = 10;               // top=   rows per table
  bool path = false;               // path=  write each rank's critical-path segments
  bool matches = false;            // matches= write each rank's matched point-to-point pairs (tests)
  int64_t skew_ns = 0;             // skew_ns=   test: artificial clock offset per rank
  double drift_ppm = 0;            // drift_ppm= test: artificial clock drift per rank
  bool align = true;               // align=  align clocks between hosts (0: tests of the repair)
  WalkMode walk = WalkMode::Jump;  // walk=jump|sequential|check
  int32_t sim_hosts = 0;           // sim_hosts= test: rank r on simulated host r mod N
  bool verbose = false;            // verbose=
  // eager=SIZE or eager=INTRA:INTER: the MPI library's eager limit (docs/pag-rules.md rule 3),
  // when it cannot be read through MPI_T or is known better.
  bool eager_set = false;
  uint64_t eager_intra = 0, eager_inter = 0;
  // eager_cache=0: ask MPI_T on every run instead of reusing the answer kept in the user's cache
  // directory (src/eager_limit.cpp: Open MPI's MPI_T_init_thread alone costs 0.3-0.4 s).
  bool eager_cache = true;
  int32_t ranks_per_node = 0;      // ranks_per_node= plan placement for nodes of N ranks (0 = actual hosts)
  bool timeline = true;            // timeline= write timeline.json (and timeline.bin)
  uint64_t timeline_max = 64ull << 20;  // timeline_max= size cap of timeline.json
  uint64_t timeline_mpiio = 32ull << 20;  // timeline_mpiio= files at least this big are written with MPI-IO
  // whatif= user what-if scenarios TARGET:FACTOR (docs/what-if.md); whatif=0: no what-if.
  std::vector<WhatIfItem> whatif;
  bool whatif_on = true;
  uint32_t whatif_top = 3;         // whatif_top= path activities and hotspot functions tried
  double whatif_stall_s = 30;      // whatif_stall= seconds the re-timing waits for a value before giving up
  double whatif_time_s = 0;        // whatif_time= seconds the re-timing may take (0: auto, the run's length, >= 10)
  bool whatif_defaults = true;     // whatif_defaults=0: only the identity and the user's scenarios
  int32_t stack = 1;               // stack= frames walked for the call site (call_path.h)
  std::string skip;                // skip=  libraries whose frames are not call sites (':'-separated)
};

// Parses the option string; appends one human-readable line per problem to `warnings`.
Options parse_options(const char* text, std::vector<std::string>* warnings);
// Parses one whatif= item as it stands in the option string (quotes included); on failure says
// why in `why`.
bool parse_whatif_item(const std::string& item, WhatIfItem* out, std::string* why);
// The whatif= option text that runs `targets` at `factor`, each target quoted where it needs
// it, so that parse_whatif_item gives them back (for the report to print).
std::string whatif_option_text(const std::vector<std::string>& targets, double factor);
// Parses sizes like 4096, 64K, 512M, 1G, 2T.
bool parse_size(const std::string& s, uint64_t* out);

}  // namespace cpath
