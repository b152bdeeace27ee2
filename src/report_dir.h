// The report directory: named and created by rank 0 at MPI_Init (so a rank that dies later
// knows where its trace goes), never overwriting anything. docs/options.md (out=, overwrite=).
#pragma once
#include <string>

namespace cpath {

struct ReportDirChoice {
  std::string path;  // absolute; "" when no directory could be created anywhere
  std::string note;  // one line for the user when the directory is not the one asked for
};

// `wanted` is out= ("" = the default name `default_name`). An existing non-empty directory
// gets a numbered sibling (DIR-2, DIR-3, ...) unless `overwrite`, which removes the previous
// run's files from it; a file of that name also gets a numbered sibling; a directory that
// cannot be created is replaced by a new unique directory under $TMPDIR (or /tmp).
ReportDirChoice choose_report_dir(const std::string& wanted, const std::string& default_name, bool overwrite);

// True for the names of files libcpath writes into a report directory (report.*, timeline.*,
// trace.<rank>.cpt, path.<rank>.txt, matches.<rank>.txt, comm_*.csv, startup.csv, rankfile, hosts.hydra): what
// overwrite=1 removes, and what makes an existing directory "hold an earlier report".
bool is_report_file_name(const std::string& name);

}  // namespace cpath
