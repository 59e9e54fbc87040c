// `kvmbench fleet`'s report (analysis/views/fleet_view.h): the jobs, and
// what differs between the machines.
#include <gtest/gtest.h>

#include <sstream>

#include "analysis/report/render/renderer.h"
#include "analysis/views/fleet_view.h"

namespace kvmbench {
namespace {

FleetMachine machine(const std::string& host, const std::string& model, const std::string& microcode,
                     const std::string& fingerprint) {
  FleetMachine m;
  m.hostname = host;
  m.identity.fields = {{"cpu.vendor", "AuthenticAMD"}, {"cpu.model_name", model}, {"cpu.microcode", microcode}};
  m.identity.fingerprint = fingerprint;
  return m;
}

TEST(FleetView, MachineKindsShowOnlyTheFieldsThatDiffer) {
  const auto t = machine_kinds_table({machine("genoa-1", "AMD EPYC 9654", "0xa101148", "1111222233334444"),
                                      machine("turin-1", "AMD EPYC 9755", "0xb002116", "5555666677778888"),
                                      machine("genoa-2", "AMD EPYC 9654", "0xa101148", "9999aaaabbbbcccc")});
  ASSERT_EQ(t.columns.size(), 4u);
  EXPECT_EQ(t.columns[1].header, "genoa-1 11112222");
  ASSERT_EQ(t.rows.size(), 2u);  // the vendor is the same everywhere
  EXPECT_EQ(t.rows[0][0].text, "cpu.model_name");
  EXPECT_EQ(t.rows[0][2].text, "AMD EPYC 9755");
  EXPECT_EQ(t.rows[1][0].text, "cpu.microcode");
  EXPECT_EQ(t.rows[1][1].text, "0xa101148");
}

TEST(FleetView, AFieldOneMachineLacksIsShownAsAbsent) {
  auto snp = machine("genoa-1", "AMD EPYC 9654", "0xa101148", "1111222233334444");
  snp.identity.fields.push_back({"firmware.snp", "1.55.21"});
  const auto t = machine_kinds_table({snp, machine("genoa-2", "AMD EPYC 9654", "0xa101148", "5555666677778888")});
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0][0].text, "firmware.snp");
  EXPECT_EQ(t.rows[0][2].text, "(absent)");
  EXPECT_TRUE(machine_kinds_table({snp}).rows.empty());
}

TEST(FleetView, TheReportSaysWhichJobFailedAndWhy) {
  FleetJobOutcome ok{"qemu-01", 7, "qemu-01", "Complete", 1, "1111222233334444", ""};
  FleetJobOutcome failed{"qemu-02", 8, "qemu-02", "Incomplete", 0, "", "kvmbench: missing capability labels: sev-snp"};
  FleetJobOutcome elsewhere{"qemu-03", 9, "qemu-01", "Complete", 1, "1111222233334444", ""};
  const Document d = fleet_document("http://lava/", {"sev-snp"}, {ok, failed, elsewhere}, {}, {}, true);
  const std::string text = render(d, Format::text);
  EXPECT_NE(text.find("fleet: 3 devices with the labels sev-snp on http://lava/: 2 gave runs, 1 failed"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("qemu-02 (job 8): kvmbench: missing capability labels: sev-snp"), std::string::npos) << text;
  // LAVA picked another device than the one the job was meant for.
  EXPECT_NE(text.find("qemu-03 (ran on qemu-01)"), std::string::npos) << text;
}

// Every format fleet offers renders the report (the data formats keep a
// row per job).
TEST(FleetView, EveryFormatRendersTheReport) {
  FleetJobOutcome failed{"qemu-02", 8, "qemu-02", "Incomplete", 0, "", "no runs published"};
  for (Format f : {Format::text, Format::md, Format::csv, Format::json, Format::html}) {
    const bool people = f == Format::text;
    const std::string out = render(fleet_document("http://lava/", {"svm"}, {failed}, {}, {}, people), f);
    EXPECT_NE(out.find("qemu-02"), std::string::npos) << out;
  }
  // JSON's numbers are numbers: the job id and its runs.
  const auto json = nlohmann::json::parse(render(fleet_document("http://lava/", {"svm"}, {failed}, {}, {}, false),
                                                 Format::json));
  ASSERT_TRUE(json.is_array()) << json.dump();  // a document without data of its own: its tables
  const nlohmann::json* jobs = nullptr;
  for (const auto& part : json)
    if (part.is_object() && part.value("title", "") == "Jobs") jobs = &part;
  ASSERT_NE(jobs, nullptr) << json.dump();
  // (a figure's cell is {text, unit, value}, as in every kvmbench table)
  EXPECT_EQ((*jobs)["rows"][0][1].value("value", -1.0), 8.0) << jobs->dump();
  EXPECT_EQ((*jobs)["rows"][0][3].value("value", -1.0), 0.0) << jobs->dump();
}

// fleet -- ab: each device's verdict in a word (its gate's lines below, the
// boots in LAVA's order), within 80 columns.
TEST(FleetView, AbVerdictsAreAWordAndTheGatesLines) {
  FleetVerdict v;
  v.device = "qemu-01";
  v.base_boots = v.cand_boots = 2;
  v.order = "base cand cand base";
  v.gate.lead = {"gate: PASSED, no significant regression beyond 0% in 5 gated metrics; a regression beyond "
                 "+5271.75% is excluded (99%) (exit 0)",
                 "suite: rmpopt --preset host"};
  v.code = 0;
  FleetJobOutcome ok{"qemu-01", 7, "qemu-01", "Complete", 4, "1111222233334444", ""};
  const std::string text = render(fleet_document("http://lava/", {"svm"}, {ok}, {}, {}, true, {v}), Format::text);
  EXPECT_NE(text.find("qemu-01    2/2  PASS"), std::string::npos) << text;
  EXPECT_NE(text.find("qemu-01: base cand cand base"), std::string::npos) << text;
  EXPECT_NE(text.find("gate: PASSED"), std::string::npos) << text;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 80u) << line;
}

}  // namespace
}  // namespace kvmbench
