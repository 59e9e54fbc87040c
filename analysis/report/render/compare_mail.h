// Two runs compared for a mailing-list reply, in the layout of the LKP
// robot's reports that kernel developers already read: a header naming the
// machine and the kernels, then per metric `base %stddev %change cand
// %stddev`, with the 95% CI of the change and the Holm-adjusted p that
// LKP's mails lack. 80 columns; values in units scaled for reading.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "analysis/verdicts/compare.h"
#include "analysis/report/render/document.h"

namespace kvmbench {

// `all`: the derived and secondary metrics too. The header and the rows are
// the document's lead, the legend its closing lines.
Document comparison_mail_document(const Comparison& c, const nlohmann::json& base_meta,
                                  const nlohmann::json& cand_meta, bool all = false);
}  // namespace kvmbench
