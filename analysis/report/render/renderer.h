// One renderer per output format, behind one function: every command
// builds one Document (report/document.h, built in analysis/views/ without
// knowing the format) and writes it with render(d, format), so a table
// reads the same in `run`, `report`, `compare` and `gate`, and a format is
// added once, not per command. Renderers never compute anything: they lay
// out what the Document holds.
//
//   text   alerts and lead lines, tables (text_table.h) a blank line apart,
//          closing lines; a line longer than 80 columns wrapped at spaces
//   mail   the text layout (the name a mailing-list reply asks for)
//   md     the same in Markdown (GitLab/GitHub comments, job summaries)
//   csv    each table with its title and source as "# " lines before it
//   json   the document's data (its tables under "tables" where it says
//          so), else its tables as an array
//   html   one self-contained page (html_page.h)
//   junit  the document's test cases (junit_xml.h); refused without them
#pragma once

#include <string>

#include "analysis/report/document.h"
#include "analysis/report/render/format.h"
#include "analysis/report/table.h"

namespace kvmbench {

class Renderer {
 public:
  virtual ~Renderer() = default;
  // Throws std::invalid_argument when the document has nothing this format
  // can hold (junit without test cases).
  virtual std::string render(const Document& d) const = 0;
};

const Renderer& renderer_for(Format f);

inline std::string render(const Document& d, Format f) { return renderer_for(f).render(d); }

// One table alone, as the table formats write it: text (and mail), md,
// csv, json. Throws std::invalid_argument for html and junit, which are
// documents' formats.
std::string render(const Table& t, Format f);

}  // namespace kvmbench
