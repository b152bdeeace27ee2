// Who talks to whom, how start-up went and where the ranks ran (issue 10): the report sections
// the communication, start-up and placement analyses fill on rank 0. The full sparse data sit
// here too, because the files next to report.json (comm_*.csv, startup.csv, rankfile,
// hosts.hydra) are written from them (docs/report.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace cpath {

// Message-size bins of Open MPI's monitoring (seed 002): bin 0 holds empty messages, bin k
// (1..64) sizes in [2^(k-1), 2^k). Bin 65 is never filled by 64-bit sizes; it is kept so that
// the layout matches Open MPI's 66 columns.
constexpr int kSizeBins = 66;
inline int size_bin(uint64_t bytes) { return bytes ? 64 - __builtin_clzll(bytes) : 0; }

enum HistogramKind : uint8_t { kHistP2P = 0, kHistCollective = 1, kHistKinds = 2 };

// Point-to-point traffic from world rank `src` to world rank `dst`, whatever communicator
// carried it (counted at the sender).
struct P2PPair {
  int32_t src = 0, dst = 0;
  uint64_t bytes = 0, messages = 0;
};

constexpr int64_t kBytesUnknown = -1;  // the record does not tell (e.g. MPI_Alltoallv's send side)

// One rank's use of one operation on one communicator.
struct CollectiveRow {
  std::string comm;        // "world", "self", "c<r>.<n>", "<parent>.dup<n>" (as cpath-read names them)
  std::string op;          // "MPI_Allreduce"
  int32_t rank = 0;        // world rank
  int32_t comm_size = 0;
  uint64_t calls = 0;
  int64_t bytes_sent = 0, bytes_recv = 0;  // or kBytesUnknown
  int64_t time_ns = 0;     // inside the calls
};

struct HistogramRow {
  int32_t rank = 0;
  uint8_t kind = kHistP2P;
  uint8_t bin = 0;
  uint64_t count = 0;
};

// Job-wide sum of CollectiveRow over ranks.
struct CollectiveSummary {
  std::string comm, op;
  int32_t comm_size = 0, ranks = 0;
  uint64_t calls = 0;
  int64_t bytes_sent = 0, bytes_recv = 0;  // or kBytesUnknown
  double time_s = 0, time_max_rank_s = 0;
};

struct CommunicationReport {
  bool present = false;
  int ranks = 0;
  std::vector<P2PPair> pairs;           // all of them, sorted by (src, dst)
  std::vector<CollectiveRow> collectives;
  std::vector<HistogramRow> histogram;  // per rank, non-zero bins only
  uint64_t job_histogram[kHistKinds][kSizeBins] = {};
  uint64_t p2p_bytes = 0, p2p_messages = 0;
  uint64_t gathered_bytes = 0;          // size of what rank 0 received for the matrix
  std::vector<P2PPair> top;             // by bytes
  std::vector<CollectiveSummary> top_collectives;  // by time
  std::vector<std::string> notes;       // what is missing from the matrix and why
};

struct StartupReport {
  bool present = false;
  std::vector<std::string> hosts;              // per world rank, MPI_Get_processor_name
  // Per world rank: process start to MPI_Init entry (< 0: unknown), MPI_Init (or
  // MPI_Init_thread), MPI_Finalize entry to the start of libcpath's analysis.
  std::vector<double> preinit_s, init_s, finalize_s;
  int slowest_rank = -1;                       // longest time before MPI_Init (its own start-up)
  std::string slowest_host;
  int last_init_rank = -1;                     // entered MPI_Init last: the others waited for it there
  double preinit[3] = {0, 0, 0}, init[3] = {0, 0, 0}, finalize[3] = {0, 0, 0};  // min, median, max
  bool preinit_known = true;                   // false if some rank could not read its start time
  double startup_s = 0;                        // earliest process start to the last MPI_Init exit
  double run_s = 0;                            // earliest process start to the latest MPI_Finalize entry
  double share_of_elapsed = 0;                 // startup_s / run_s
  double on_critical_path_s = 0;               // path time before MPI_Init and inside MPI_Init
};

struct TopologyInfo {
  std::string comm, kind;  // kind: "cartesian", "graph", "dist_graph"
  int32_t size = 0;
  int32_t moved = 0;       // ranks whose position differs from the parent communicator's
};

struct PlacementReport {
  bool present = false;
  int ranks_per_node = 0;               // option ranks_per_node=, 0 = the hosts of this run
  std::vector<std::string> hosts;       // per world rank, MPI_Get_processor_name
  std::vector<std::string> node_names;  // nodes of the plan
  std::vector<int32_t> current, suggested;  // node index per world rank
  uint64_t current_internode_bytes = 0, suggested_internode_bytes = 0, p2p_bytes = 0;
  std::string mapper;                   // "scotch" or "greedy"
  std::string note;                     // why the suggestion is what it is
  std::string rankfile, hostfile;       // file names in the report directory
  std::vector<TopologyInfo> topologies;
};

}  // namespace cpath
