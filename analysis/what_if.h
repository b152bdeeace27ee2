// What if: how much shorter the run would be if some activity were faster, from a forward
// re-timing of the Program Activity Graph (replay/forward_pass.h; docs/what-if.md). This file
// chooses the scenarios and words them: the top path activities and path hotspot functions 2x
// faster, every rank's compute balanced to the mean, MPI time zero, start-up zero, and the
// user's (option whatif=TARGET:FACTOR).
#pragma once
#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include "clock_repair.h"
#include "critical_path_walk.h"
#include "ops.h"
#include "options.h"
#include "partners.h"
#include "report.h"
#include "site_names.h"
#include "timeline.h"

namespace cpath {

class RegionMap;

// Sampled share of named functions in each compute interval of this rank (the interval before
// event i: entries begin[i] .. begin[i+1]), for function scenarios.
struct FunctionShares {
  std::vector<std::string> names;  // the same on every rank
  std::vector<uint32_t> begin;     // n + 1 entries, or empty: no samples
  std::vector<std::pair<uint16_t, float>> share;
};

// From each sample's time and function (pmu_attribution.h SampleFunctions): the share of the
// `wanted` functions among the samples in each compute interval of the MPI_Init thread
// (samples of any thread count: OpenMP workers compute in the main thread's interval).
FunctionShares function_shares(const Timeline& tl, const std::vector<int64_t>& time, const std::vector<uint32_t>& fn,
                               const std::vector<std::string>& fn_names, const std::vector<std::string>& wanted);

struct WhatIfContext {
  const Timeline* tl = nullptr;
  const OpTable* ops = nullptr;
  const PartnerTable* partners = nullptr;
  const std::vector<uint8_t>* coll_complete = nullptr;
  const WalkResult* walk = nullptr;
  double walk_s = 0;  // this rank's time in that walk: what a new path's walk is expected to cost
  uint64_t clock_unrepaired = 0;                 // job-wide
  std::vector<std::string> path_activities;      // by path time, every rank the same
  const FunctionShares* functions = nullptr;     // optional
  std::vector<std::string> path_functions;       // top hotspot functions on the path, every rank
  SiteNames* names = nullptr;
  std::vector<WhatIfItem> user;                  // option whatif=
  unsigned top = 3;
  double stall_s = 30;  // ForwardInput::stall_s (option whatif_stall=)
  double time_s = 0;    // the forward passes' budget (option whatif_time=; 0: the run's length, >= 10 s)
  bool defaults = true;                          // false: identity and user scenarios only
  std::string dump_path;                         // tests: this rank's scenarios and factors
  bool paths = true;                             // walk each scenario's new critical path
  const RegionMap* regions = nullptr;            // names the new paths' activities as the report does
  // Scenarios re-timed together in one pass (src/memory_budget.h: each costs memory per event;
  // fewer per pass cost more passes). 0: none fit. Every rank the same.
  uint32_t scenarios_per_pass = UINT32_MAX;
  uint64_t memory_limit = 0;                     // for the note when none fit
  uint64_t events_max = UINT64_MAX;              // most events on one rank (every rank the same)
  // Called once the last forward pass has read ops, partners and coll_complete
  // (ForwardInput::release_pag): their owner may free them, so that the pass's tables and the
  // new-path walks do not peak on top of them.
  std::function<void()> release_pag;
  // Called once the last pass's factors are made, before that pass, unless dump_path is set
  // (the dump reads the factors after the passes): `functions` is not read after, and its 4
  // bytes per event would add to the pass's peak.
  std::function<void()> release_functions;
};

// Collective over comm; the report is complete on rank 0.
WhatIfReport analyse_what_if(const WhatIfContext& cx, MPI_Comm comm);

}  // namespace cpath
