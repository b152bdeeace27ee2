# Turns the HTML page template into a C++ byte array (no raw-string length limits, no escaping):
#   cmake -DIN=report_template.html -DOUT=report_template.cpp -P embed_template.cmake
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUT} "// Generated from report/report_template.html by report/embed_template.cmake: do not edit.\n"
  "#include <cstddef>\nnamespace cpath {\nextern const char kReportTemplate[];\nextern const size_t kReportTemplateSize;\n"
  "const char kReportTemplate[] = {${bytes} 0};\nconst size_t kReportTemplateSize = sizeof(kReportTemplate) - 1;\n}  // namespace cpath\n")
