#include "suites/make_shared/report.h"

#include <fmt/format.h>

#include <map>
#include <unordered_map>
#include <optional>

#include "analysis/statistics.h"

namespace kvmbench::suites::make_shared {

namespace {

struct Conversion {
  std::string_view case_name;  // a view into the samples
  std::optional<double> make_shared, total;
};

struct CaseIteration {
  std::string_view case_name;
  int iteration;
  bool operator==(const CaseIteration&) const = default;
};
struct CaseIterationHash {
  std::size_t operator()(const CaseIteration& k) const {
    return std::hash<std::string_view>()(k.case_name) ^ (static_cast<std::size_t>(k.iteration) * 0x9e3779b97f4a7c15ull);
  }
};

// One entry per (case, iteration), in the order the conversions were seen
// (hashed: a long log has tens of thousands of conversions).
std::vector<Conversion> conversions(const std::vector<Sample>& samples) {
  std::vector<Conversion> out;
  std::unordered_map<CaseIteration, std::size_t, CaseIterationHash> index;
  for (const auto& s : samples) {
    if (s.warmup || (s.metric != "make_shared_cycles" && s.metric != "total_cycles")) continue;
    auto [it, fresh] = index.try_emplace({s.case_name, s.iteration}, out.size());
    if (fresh) out.push_back({s.case_name, {}, {}});
    Conversion& c = out[it->second];
    (s.metric == "make_shared_cycles" ? c.make_shared : c.total) = s.value;
  }
  std::erase_if(out, [](const Conversion& c) { return !c.make_shared || !c.total || *c.total <= 0; });
  return out;
}

std::string nr_pages_of(std::string_view case_name) {
  constexpr std::string_view prefix = "nr_pages=";
  return std::string(case_name.starts_with(prefix) ? case_name.substr(prefix.size()) : case_name);
}

double pct(const Conversion& c) { return 100.0 * *c.make_shared / *c.total; }

// The thread's question: is make_shared's share of the conversion larger
// than the run-to-run noise of the total? Per nr_pages, the noise is the CV
// of total across the conversions of that size, compared with the mean
// share (both in percent of the total, so directly comparable).
Table noise_table(const std::vector<Conversion>& convs, std::string_view source) {
  Table t;
  t.title = "Is make_shared above the run-to-run noise of the total? per nr_pages";
  t.source = std::string(source);
  t.columns = {{"nr_pages"}, {"n"}, {"mean total"}, {"total's CV"}, {"mean share"}, {"share/CV"}};
  std::vector<std::string_view> order;
  std::map<std::string_view, std::vector<double>> totals, shares;
  for (const auto& c : convs) {
    if (!totals.count(c.case_name)) order.push_back(c.case_name);
    totals[c.case_name].push_back(*c.total);
    shares[c.case_name].push_back(pct(c));
  }
  std::vector<std::string> conclusions;
  for (const auto& name : order) {
    const auto tot = stats::summarize(totals[name]);
    const double share = stats::summarize(shares[name]).mean;
    const std::string pages = nr_pages_of(name);
    if (tot.n < 2) {
      t.add_row({pages, std::to_string(tot.n), fmt::format("{:.0f}", tot.mean), "n/a",
                 fmt::format("{:.4f}%", share), "n/a"});
      conclusions.push_back(fmt::format("nr_pages={}: one conversion, no run-to-run noise to compare", pages));
      continue;
    }
    const double cv = 100.0 * tot.stddev / tot.mean;
    const double ratio = share / cv;
    t.add_row({pages, std::to_string(tot.n), fmt::format("{:.0f}", tot.mean), fmt::format("{:.4f}%", cv),
               fmt::format("{:.4f}%", share), fmt::format("{:.2f}", ratio)});
    if (share > cv)
      conclusions.push_back(fmt::format("nr_pages={}: share {:.4f}% > total's CV {:.4f}% ({:.1f}x): above the noise",
                                        pages, share, cv, ratio));
    else if (share < cv)
      conclusions.push_back(fmt::format("nr_pages={}: share {:.4f}% < total's CV {:.4f}%: within the noise", pages,
                                        share, cv));
    else
      conclusions.push_back(fmt::format("nr_pages={}: share {:.4f}% = total's CV: at the noise level", pages, share));
  }
  t.notes.push_back("total's CV = sample sd / mean of total over the conversions of one size;");
  t.notes.push_back("  share = mean of 100 * make_shared / total; share/CV > 1: make_shared costs");
  t.notes.push_back("  more than the total varies from run to run (a CV from n = 5 is rough)");
  for (auto& c : conclusions) t.notes.push_back(std::move(c));
  return t;
}

Table listing_table(const std::vector<Conversion>& convs, std::string_view source) {
  Table t;
  t.title = "guest_memfd to_shared: arch make_shared callback vs whole conversion (cycles)";
  t.source = std::string(source);
  // Header cells padded to the document's column widths (10, 15, 15, 12).
  t.columns = {{"  nr_pages"}, {"    make_shared"}, {"          total"}, {"  percentage"}};
  for (const auto& c : convs)
    t.add_row({nr_pages_of(c.case_name), fmt::format("{:.0f}", *c.make_shared), fmt::format("{:.0f}", *c.total),
               fmt::format("{:.4f}%", pct(c))});
  return t;
}

}  // namespace

Table conversion_table(const std::vector<Sample>& samples, std::string_view source) {
  return listing_table(conversions(samples), source);
}

std::vector<Table> report_tables(const std::vector<Sample>& samples, std::string_view source) {
  const auto convs = conversions(samples);
  if (convs.empty()) return {};
  std::vector<Table> tables{listing_table(convs, source)};

  Table s;
  s.title = "make_shared share of the conversion, per nr_pages (percent)";
  s.source = std::string(source);
  s.columns = {{"nr_pages"}, {"n"}, {"mean"}, {"sd"}, {"95% CI of mean"}, {"min"}, {"max"}};
  std::vector<std::string_view> order;
  std::map<std::string_view, std::vector<double>> by_case;
  for (const auto& c : convs) {
    if (!by_case.count(c.case_name)) order.push_back(c.case_name);
    by_case[c.case_name].push_back(pct(c));
  }
  for (const auto& name : order) {
    const auto m = stats::summarize(by_case[name]);
    const std::string ci = m.n < 2 ? "n/a" : fmt::format("[{:.4f}, {:.4f}]", m.ci95_low, m.ci95_high);
    s.add_row({nr_pages_of(name), std::to_string(m.n), fmt::format("{:.4f}%", m.mean),
               m.n < 2 ? "n/a" : fmt::format("{:.4f}", m.stddev), ci, fmt::format("{:.4f}%", m.min),
               fmt::format("{:.4f}%", m.max)});
  }
  s.notes.push_back("percentage = 100 * make_shared / total per conversion; sd: sample sd (n-1)");
  tables.push_back(std::move(s));
  tables.push_back(noise_table(convs, source));
  return tables;
}

}  // namespace kvmbench::suites::make_shared
