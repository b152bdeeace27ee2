#include "pmu/symbolizer.h"

#include <cxxabi.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <libelf.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace cpath::pmu {
namespace {

// Whether the separate debug file `fd` belongs to `mod` (same GNU build-id; a module without
// one cannot be checked and is accepted, as a plain debuglink search would).
bool same_build_id(Dwfl_Module* mod, int fd) {
  const unsigned char* bits = nullptr;
  GElf_Addr vaddr = 0;
  const int n = dwfl_module_build_id(mod, &bits, &vaddr);
  if (n <= 0) return true;
  Elf* e = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (e == nullptr) return false;
  const void* id = nullptr;
  const ssize_t m = dwelf_elf_gnu_build_id(e, &id);
  const bool ok = m == n && std::memcmp(id, bits, static_cast<size_t>(n)) == 0;
  elf_end(e);
  return ok;
}

// The .gnu_debuglink search of the standard callback (beside the file, in .debug/ beside it,
// under /usr/lib/debug), checked by build-id instead of the file's CRC.
int find_debuglink(Dwfl_Module* mod, const char* file_name, const char* link, char** found) {
  if (link == nullptr || link[0] == '\0' || file_name == nullptr) return -1;
  const char* slash = std::strrchr(file_name, '/');
  const std::string dir = slash ? std::string(file_name, static_cast<size_t>(slash - file_name)) : ".";
  for (const std::string& c : {dir + "/" + link, dir + "/.debug/" + link, "/usr/lib/debug" + dir + "/" + link}) {
    if (c == file_name) continue;
    const int fd = open(c.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    if (same_build_id(mod, fd)) {
      *found = strdup(c.c_str());
      return fd;
    }
    close(fd);
  }
  return -1;
}

// Local debug information only: by build-id (/usr/lib/debug/.build-id, what Debian -dbgsym
// packages install), then by .gnu_debuglink. Not dwfl_standard_find_debuginfo: besides ending
// with a debuginfod (network) query when DEBUGINFOD_URLS is set, libdw 0.188 dlopens the
// debuginfod client (libcurl, TLS) for it in any case, which was ~60 % of the instructions of
// a small job's whole finalize on every rank.
int find_debuginfo_local(Dwfl_Module* mod, void** userdata, const char* modname, GElf_Addr base,
                         const char* file_name, const char* debuglink_file,
                         GElf_Word debuglink_crc, char** debuginfo_file_name) {
  const int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                              debuglink_crc, debuginfo_file_name);
  if (fd >= 0) return fd;
  return find_debuglink(mod, file_name, debuglink_file, debuginfo_file_name);
}

std::string basename_of(const char* path) {
  if (path == nullptr || path[0] == '\0') return "[unknown]";
  // libdwfl names the vDSO "[vdso: <pid>]".
  if (std::strncmp(path, "[vdso", 5) == 0) return "[vdso]";
  const char* slash = std::strrchr(path, '/');
  return slash != nullptr ? std::string(slash + 1) : std::string(path);
}

std::string with_offset(const std::string& module, uint64_t offset) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "+0x%" PRIx64, offset);
  return module + buf;
}

}  // namespace

std::string demangle_symbol(const char* name) {
  // gfortran's module procedures: "__" module "_MOD_" procedure. Other Fortran names
  // ("x_solve_cell_") and C stay as they are.
  if (std::strncmp(name, "__", 2) == 0) {
    const char* mod = std::strstr(name + 2, "_MOD_");
    if (mod && mod > name + 2 && mod[5] != '\0') return std::string(name + 2, mod) + "::" + (mod + 5);
    return name;
  }
  if (std::strncmp(name, "_Z", 2) != 0) return name;
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (d == nullptr || status != 0) {
    std::free(d);
    return name;
  }
  std::string out(d);
  std::free(d);
  return out;
}

struct Symbolizer::Impl {
  Dwfl_Callbacks callbacks{};  // libdwfl keeps a pointer to it: must live as long as dwfl
  char* debuginfo_path = nullptr;
  Dwfl* dwfl = nullptr;
  std::vector<ModuleMapEntry> modules;  // for module+offset when libdwfl has no answer
  std::unordered_map<uint64_t, SymbolInfo> cache, function_cache;
  std::string error;
  SymbolInfo unknown{"[unknown]", "[unknown]", "", 0, 0, false};
  bool source_lines = true;

  explicit Impl(const SymbolizerOptions& o, bool live_process) : source_lines(o.source_lines) {
    callbacks.find_elf = live_process ? dwfl_linux_proc_find_elf : dwfl_build_id_find_elf;
    callbacks.find_debuginfo = o.allow_debuginfod ? dwfl_standard_find_debuginfo : find_debuginfo_local;
    callbacks.debuginfo_path = &debuginfo_path;
    dwfl = dwfl_begin(&callbacks);
    if (dwfl == nullptr) error = std::string("dwfl_begin: ") + dwfl_errmsg(-1);
  }
  ~Impl() {
    if (dwfl != nullptr) dwfl_end(dwfl);
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  SymbolInfo resolve(uint64_t addr, bool lines) const;
};

SymbolInfo Symbolizer::Impl::resolve(uint64_t addr, bool lines) const {
  SymbolInfo r;
  Dwfl_Module* mod = dwfl != nullptr ? dwfl_addrmodule(dwfl, addr) : nullptr;
  Dwarf_Addr start = 0, end = 0;
  const char* name =
      mod != nullptr ? dwfl_module_info(mod, nullptr, &start, &end, nullptr, nullptr, nullptr, nullptr)
                     : nullptr;
  // libdwfl 0.188 answers the last module for addresses above all modules
  // (e.g. the stack); keep only real containment.
  if (mod != nullptr && (addr < start || addr >= end)) mod = nullptr;
  if (mod == nullptr) {
    for (const ModuleMapEntry& m : modules)
      if (addr >= m.base && addr - m.base < m.size) {
        r.module = basename_of(m.path.c_str());
        r.offset = addr - m.base;
        r.function = with_offset(r.module, r.offset);
        return r;
      }
    r = unknown;
    r.offset = addr;
    return r;
  }

  r.module = basename_of(name);
  Dwarf_Addr bias = 0;
  Elf* elf = dwfl_module_getelf(mod, &bias);
  r.offset = elf != nullptr ? addr - bias : addr - start;

  GElf_Off sym_off = 0;
  GElf_Sym sym;
  std::memset(&sym, 0, sizeof(sym));
  const char* sym_name =
      elf != nullptr ? dwfl_module_addrinfo(mod, addr, &sym_off, &sym, nullptr, nullptr, nullptr) : nullptr;
  // A symbol without size only names its own first byte: in a stripped
  // module the nearest sizeless symbol before a static function is unrelated.
  const bool inside = sym.st_size > 0 ? sym_off < sym.st_size : sym_off == 0;
  if (sym_name != nullptr && sym_name[0] != '\0' && inside) {
    r.function = demangle_symbol(sym_name);
    r.has_symbol = true;
    r.symbol_start = addr - sym_off;
    r.symbol_size = sym.st_size;
  } else {
    r.function = with_offset(r.module, r.offset);
  }

  if (!source_lines || !lines) return r;
  if (Dwfl_Line* line = dwfl_module_getsrc(mod, addr)) {
    int lineno = 0;
    const char* src = dwfl_lineinfo(line, nullptr, &lineno, nullptr, nullptr, nullptr);
    if (src != nullptr) r.file = src;
    if (lineno > 0) r.line = static_cast<uint32_t>(lineno);
  }
  return r;
}

Symbolizer::Symbolizer(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
Symbolizer::Symbolizer(Symbolizer&&) noexcept = default;
Symbolizer& Symbolizer::operator=(Symbolizer&&) noexcept = default;
Symbolizer::~Symbolizer() = default;

Symbolizer Symbolizer::from_current_process(const SymbolizerOptions& options) noexcept {
  try {
    auto impl = std::make_unique<Impl>(options, /*live_process=*/true);
    impl->modules = current_module_map();
    if (impl->dwfl != nullptr) {
      dwfl_report_begin(impl->dwfl);
      const int rc = dwfl_linux_proc_report(impl->dwfl, getpid());
      if (dwfl_report_end(impl->dwfl, nullptr, nullptr) != 0 || rc != 0)
        impl->error = std::string("dwfl_linux_proc_report: ") +
                      (rc > 0 ? std::strerror(rc) : dwfl_errmsg(-1));
    }
    return Symbolizer(std::move(impl));
  } catch (...) {
    return Symbolizer(nullptr);
  }
}

Symbolizer Symbolizer::from_module_map(const std::vector<ModuleMapEntry>& modules,
                                       const SymbolizerOptions& options) noexcept {
  try {
    auto impl = std::make_unique<Impl>(options, /*live_process=*/false);
    impl->modules = modules;
    if (impl->dwfl != nullptr) {
      dwfl_report_begin(impl->dwfl);
      std::string missing;
      for (const ModuleMapEntry& m : modules) {
        // ET_DYN is placed with its first segment at m.base; ET_EXEC ignores it.
        if (dwfl_report_elf(impl->dwfl, m.path.c_str(), m.path.c_str(), -1, m.base, false) == nullptr &&
            missing.empty())
          missing = m.path + ": " + dwfl_errmsg(-1);
      }
      if (dwfl_report_end(impl->dwfl, nullptr, nullptr) != 0)
        impl->error = std::string("dwfl_report_end: ") + dwfl_errmsg(-1);
      else if (!missing.empty())
        impl->error = "cannot read module " + missing;
    }
    return Symbolizer(std::move(impl));
  } catch (...) {
    return Symbolizer(nullptr);
  }
}

const SymbolInfo& Symbolizer::lookup(uint64_t address) noexcept {
  static const SymbolInfo kUnknown{"[unknown]", "[unknown]", "", 0, 0, false};
  if (!impl_) return kUnknown;
  try {
    auto it = impl_->cache.find(address);
    if (it != impl_->cache.end()) return it->second;
    return impl_->cache.emplace(address, impl_->resolve(address, true)).first->second;
  } catch (...) {
    return impl_->unknown;
  }
}

const SymbolInfo& Symbolizer::lookup_function(uint64_t address) noexcept {
  static const SymbolInfo kUnknown{"[unknown]", "[unknown]", "", 0, 0, false};
  if (!impl_) return kUnknown;
  try {
    auto it = impl_->cache.find(address);
    if (it != impl_->cache.end()) return it->second;
    it = impl_->function_cache.find(address);
    if (it != impl_->function_cache.end()) return it->second;
    return impl_->function_cache.emplace(address, impl_->resolve(address, false)).first->second;
  } catch (...) {
    return impl_->unknown;
  }
}

bool Symbolizer::ok() const noexcept { return impl_ && impl_->dwfl != nullptr; }

const std::string& Symbolizer::error() const noexcept {
  static const std::string kNoMemory = "out of memory";
  return impl_ ? impl_->error : kNoMemory;
}

}  // namespace cpath::pmu
