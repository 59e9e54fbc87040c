// Fixed-point text of a double, as printf("%.*f") writes it, for tables of
// tens of thousands of rows (a long log's conversion listing): through
// std::to_chars, which is exact and several times faster than fmt 9's
// fixed precision (that falls back to big-integer arithmetic for values
// past 2^53 / 10^decimals).
#pragma once

#include <string>

namespace kvmbench {

// "nan", "inf", "-inf" for non-finite values; decimals from 0 to 17.
std::string format_fixed(double v, int decimals);

}  // namespace kvmbench
