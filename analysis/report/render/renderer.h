// One renderer per output format, behind one interface: every command
// builds a Document (document.h) and writes it with renderer_for(format),
// so a table reads the same in `run`, `report`, `compare` and `gate`, and a
// format is added once, not per command. Renderers never compute anything.
//
//   text   lead lines, tables (render_text) a blank line apart, closing lines
//   mail   the text layout (a command shapes its document for a reply:
//          compare's LKP layout); every line within 80 columns
//   md     the same in Markdown (GitLab/GitHub comments, job summaries)
//   csv    each table with its title and source as "# " lines before it
//   json   the document's data, else its tables as an array
//   html   one self-contained page: lead, tables (with their charts), charts
//   junit  the document's test cases (JUnit XML); refused without them
#pragma once

#include <string>

#include "analysis/report/render/document.h"

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

}  // namespace kvmbench
