#include "analysis/model/series_key.h"

namespace kvmbench {

std::string SeriesKey::where() const { return variant.empty() ? case_name : case_name + "/" + variant; }

std::string SeriesKey::name() const { return where() + "/" + metric; }

}  // namespace kvmbench
