#include "analysis/views/bisect_view.h"

#include "analysis/report/numbers.h"

namespace kvmbench {

Document bisect_document(const BisectDecision& d) {
  Document doc;
  doc.lead.push_back("bisect-run: " + d.reason);
  if (d.metrics.empty()) return doc;
  Table t;
  t.max_text_rows = 0;
  t.columns = {{"metric", Align::left}, {"bad vs good"}, {"this vs good"}, {"p(Holm)"},
               {"this vs bad"},         {"p(Holm)"},     {"says", Align::left}};
  for (const auto& m : d.metrics)
    t.add_row({m.key, format_pct(m.good_to_bad_pct), format_pct(m.cand_vs_good_pct), format_p(m.p_good),
               format_pct(m.cand_vs_bad_pct), format_p(m.p_bad), std::string(to_string(m.says))});
  t.notes.push_back("this: the commit under test; p(Holm): its change against that side's runs, Holm over the "
                    "metrics bisected.");
  doc.lead.push_back("");
  doc.tables.push_back(std::move(t));
  return doc;
}

}  // namespace kvmbench
