// Collection test: a C++ application (classes, RAII, templates, std::vector buffers) calling
// the MPI C API. Every call is tallied where it is made (coll_tally.h) and declared as an
// expectation. Needs an even number of ranks >= 2 (ctest runs 4).
#include <mpi.h>

#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "coll_tally.h"

namespace {

template <class T>
MPI_Datatype mpi_type();
template <>
MPI_Datatype mpi_type<int>() { return MPI_INT; }
template <>
MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }
template <>
MPI_Datatype mpi_type<char>() { return MPI_CHAR; }

// What the program knows about a communicator: its name in the trace summary and the world
// rank of each local rank.
struct CommInfo {
  MPI_Comm comm = MPI_COMM_NULL;
  std::string name;
  std::vector<int> world;  // local rank -> world rank
  int rank = 0;
  int size() const { return static_cast<int>(world.size()); }
};

// RAII duplicate of a communicator.
class DupComm {
 public:
  DupComm(const CommInfo& parent, std::string name) {
    MPI_Comm_dup(parent.comm, &info_.comm);
    tally_call("MPI_Comm_dup", 0);
    info_.name = std::move(name);
    info_.world = parent.world;
    info_.rank = parent.rank;
  }
  ~DupComm() {
    MPI_Comm_free(&info_.comm);
    tally_call("MPI_Comm_free", 0);
  }
  DupComm(const DupComm&) = delete;
  DupComm& operator=(const DupComm&) = delete;
  const CommInfo& info() const { return info_; }

 private:
  CommInfo info_;
};

// A 1-D domain with one ghost cell on each side, exchanged around a ring.
template <class T>
class Halo1D {
 public:
  Halo1D(const CommInfo& c, int n, int tag) : c_(c), v_(static_cast<size_t>(n) + 2), tag_(tag) {
    for (int i = 1; i <= n; ++i) v_[static_cast<size_t>(i)] = static_cast<T>(c.rank * 100 + i);
  }
  void exchange() {
    const int p = c_.size(), me = c_.rank;
    const int left = (me + p - 1) % p, right = (me + 1) % p;
    const long b = static_cast<long>(sizeof(T));
    MPI_Request rq[4];
    MPI_Irecv(&v_.front(), 1, mpi_type<T>(), left, tag_, c_.comm, &rq[0]);
    MPI_Irecv(&v_.back(), 1, mpi_type<T>(), right, tag_ + 1, c_.comm, &rq[1]);
    MPI_Isend(&v_[v_.size() - 2], 1, mpi_type<T>(), right, tag_, c_.comm, &rq[2]);
    MPI_Isend(&v_[1], 1, mpi_type<T>(), left, tag_ + 1, c_.comm, &rq[3]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    tally_calls_n("MPI_Irecv", 2, 0);
    tally_calls_n("MPI_Isend", 2, b);
    tally_call("MPI_Waitall", 0);
    tally_p2p("recv", "MPI_Irecv", c_.name.c_str(), left, c_.world[static_cast<size_t>(left)], tag_, 0);
    tally_p2p("recv", "MPI_Irecv", c_.name.c_str(), right, c_.world[static_cast<size_t>(right)], tag_ + 1, 0);
    tally_p2p("send", "MPI_Isend", c_.name.c_str(), right, c_.world[static_cast<size_t>(right)], tag_, b);
    tally_p2p("send", "MPI_Isend", c_.name.c_str(), left, c_.world[static_cast<size_t>(left)], tag_ + 1, b);
  }
  T ghost_left() const { return v_.front(); }
  T ghost_right() const { return v_.back(); }
  T interior_sum() const { return std::accumulate(v_.begin() + 1, v_.end() - 1, T{}); }

 private:
  const CommInfo& c_;
  std::vector<T> v_;
  int tag_;
};

// Blocking ring shift with MPI_Sendrecv of a whole vector.
template <class T>
std::vector<T> ring_shift(const CommInfo& c, const std::vector<T>& out, int tag) {
  const int p = c.size(), me = c.rank;
  const int right = (me + 1) % p, left = (me + p - 1) % p;
  std::vector<T> in(out.size());
  const int cnt = static_cast<int>(out.size());
  MPI_Sendrecv(out.data(), cnt, mpi_type<T>(), right, tag, in.data(), cnt, mpi_type<T>(), left, tag, c.comm,
               MPI_STATUS_IGNORE);
  const long b = static_cast<long>(sizeof(T)) * cnt;
  tally_call("MPI_Sendrecv", b);
  tally_p2p("send", "MPI_Sendrecv", c.name.c_str(), right, c.world[static_cast<size_t>(right)], tag, b);
  tally_p2p("recv", "MPI_Sendrecv", c.name.c_str(), left, c.world[static_cast<size_t>(left)], tag, 0);
  return in;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  tally_call("MPI_Init", 0);
  CommInfo world;
  world.comm = MPI_COMM_WORLD;
  world.name = "world";
  int n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  for (int i = 0; i < n; ++i) world.world.push_back(i);
  const int r = world.rank;

  // Broadcast a std::string from rank 0: its length, then its characters.
  std::string greeting = r == 0 ? "hello from a C++ rank zero" : "";
  int len = static_cast<int>(greeting.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  greeting.resize(static_cast<size_t>(len));
  MPI_Bcast(&greeting[0], len, MPI_CHAR, 0, MPI_COMM_WORLD);
  tally_call("MPI_Bcast", 4);
  tally_call("MPI_Bcast", len);

  double total = 0;
  {
    // A duplicate is named after its parent: the first duplicate of world.
    DupComm dup(world, "world.dup0");
    Halo1D<double> h(dup.info(), 16, 40);
    h.exchange();
    h.exchange();
    TALLY_CHECK(h.ghost_left() == ((r + n - 1) % n) * 100 + 16, "left ghost");
    TALLY_CHECK(h.ghost_right() == ((r + 1) % n) * 100 + 1, "right ghost");
    double s = h.interior_sum();
    MPI_Allreduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, dup.info().comm);
    tally_call("MPI_Allreduce", 8);
    std::vector<int> v(5, r);
    std::vector<int> got = ring_shift(dup.info(), v, 41);
    TALLY_CHECK(got[4] == (r + n - 1) % n, "ring shift");
  }

  // Split by parity (key = world rank): the second communicator-creating call on the world
  // (after the duplicate above), told apart by the colour (names: tools/cpath_read.cpp).
  CommInfo half;
  const int color = r % 2;
  MPI_Comm_split(MPI_COMM_WORLD, color, r, &half.comm);
  tally_call("MPI_Comm_split", 0);
  for (int w = color; w < n; w += 2) half.world.push_back(w);
  half.rank = r / 2;
  half.name = color == 0 ? "world#1:0" : "world#1:1";
  Halo1D<int> hi(half, 4, 50);
  hi.exchange();
  std::vector<double> dv(3, 1.5 * r);
  std::vector<double> back = ring_shift(half, dv, 51);
  TALLY_CHECK(back[0] == 1.5 * half.world[static_cast<size_t>((half.rank + half.size() - 1) % half.size())],
              "half ring shift");

  // Variable-size collectives with std::vector counts.
  std::vector<int> counts(static_cast<size_t>(n)), displs(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    counts[static_cast<size_t>(i)] = 2 * i + 1;
    displs[static_cast<size_t>(i)] = i * i;
  }
  const int sum = n * n;
  std::vector<int> mine(static_cast<size_t>(2 * r + 1), r), all(static_cast<size_t>(sum));
  MPI_Allgatherv(mine.data(), 2 * r + 1, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, MPI_COMM_WORLD);
  tally_call("MPI_Allgatherv", 4L * sum);
  TALLY_CHECK(all[static_cast<size_t>(sum - 1)] == n - 1, "Allgatherv data");
  std::vector<double> part(static_cast<size_t>(2 * r + 1));
  std::vector<double> whole(static_cast<size_t>(sum), 2.0);
  MPI_Scatterv(whole.data(), counts.data(), displs.data(), MPI_DOUBLE, part.data(), 2 * r + 1, MPI_DOUBLE, 1 % n,
               MPI_COMM_WORLD);
  tally_call("MPI_Scatterv", r == 1 % n ? 8L * sum : 8L * (2 * r + 1));
  std::vector<double> red(4, r), res(4);
  MPI_Reduce(red.data(), res.data(), 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  tally_call("MPI_Reduce", 32);
  MPI_Comm_free(&half.comm);
  tally_call("MPI_Comm_free", 0);

  if (r == 0)
    std::printf("coll_cpp_app: '%s' total=%.1f max=%.1f errors=%d\n", greeting.c_str(), total, res[0], tally_errors);
  tally_call("MPI_Finalize", 0);
  // Halo exchanges keep two Isends outstanding (one shared handle under Open MPI, see
  // coll_request_reuse); every request must still be accounted for.
  tally_emit(1);
  MPI_Finalize();
  return tally_errors ? 1 : 0;
}
