// report.html: one self-contained page. The page template (report_template.html: HTML, CSS and
// the script that draws every plot as SVG) is embedded in the library at build time; the data
// is report.json's own text, inlined, so the page shows exactly what report.json says and
// cpath-report can rebuild it from report.json alone.
#include <cstddef>

#include "report.h"

namespace cpath {

extern const char kReportTemplate[];
extern const size_t kReportTemplateSize;

namespace {

// JSON inside <script type="application/json">: only "</script" could end the element early;
// "<" appears in JSON only inside strings, where \u003c means the same character.
std::string script_safe(const std::string& json) {
  std::string o;
  o.reserve(json.size());
  for (char c : json) {
    if (c == '<') o += "\\u003c";
    else o += c;
  }
  return o;
}

void replace_once(std::string& s, const std::string& what, const std::string& with) {
  const size_t p = s.find(what);
  if (p != std::string::npos) s.replace(p, what.size(), with);
}

}  // namespace

std::string report_html(const std::string& report_json_text, const std::string& timeline_json) {
  std::string page(kReportTemplate, kReportTemplateSize);
  // The timeline placeholder comes first in the template, so text inside report.json can never
  // be taken for it.
  replace_once(page, "@@TIMELINE_JSON@@", script_safe(timeline_json.empty() ? "null" : timeline_json));
  replace_once(page, "@@REPORT_JSON@@", script_safe(report_json_text));
  return page;
}

}  // namespace cpath
