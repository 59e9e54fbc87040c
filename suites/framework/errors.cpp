#include "suites/framework/errors.h"

#include "analysis/model/busy_error.h"

#include <fmt/format.h>

#include <any>
#include <functional>
#include <optional>
#include <variant>

namespace kvmbench {

namespace {

ExitVerdict internal_error(const char* what) {
  return {kExitInternalError,
          fmt::format("internal error (a bug in kvmbench; please report it with this line): {}", what)};
}

}  // namespace

ExitVerdict exit_verdict(const std::exception_ptr& error, int usage_code) {
  try {
    std::rethrow_exception(error);
  } catch (const ExitError& e) {
    return {e.code, e.what()};
  } catch (const BusyError& e) {
    // Held by another process (a database's lock): try again later.
    return {kExitBusy, fmt::format("busy: {}", e.what())};
  } catch (const std::invalid_argument& e) {
    // Thrown for values a user gave (std::stoi, our own parsers).
    return {usage_code, fmt::format("error: {}", e.what())};
  } catch (const std::out_of_range& e) {
    // std::stoul and friends on a number too large for its type.
    return {usage_code, fmt::format("error: {}", e.what())};
  } catch (const std::logic_error& e) {
    return internal_error(e.what());
  } catch (const std::bad_optional_access& e) {
    return internal_error(e.what());
  } catch (const std::bad_variant_access& e) {
    return internal_error(e.what());
  } catch (const std::bad_any_cast& e) {
    return internal_error(e.what());
  } catch (const std::bad_function_call& e) {
    return internal_error(e.what());
  } catch (const std::exception& e) {
    // A file that cannot be read, a host that refused, a malformed document.
    return {usage_code, fmt::format("error: {}", e.what())};
  } catch (...) {
    return internal_error("an exception that is not a std::exception");
  }
}

bool is_bad_input(const std::exception_ptr& error) { return exit_verdict(error, kExitUsage).code == kExitUsage; }

void rethrow_naming_bad_input(const std::exception_ptr& error, const std::string& about) {
  try {
    std::rethrow_exception(error);
  } catch (const ExitError&) {
    throw;  // its code and message are already what they should be
  } catch (const std::exception& e) {
    if (!is_bad_input(error)) throw;
    throw ExitError(kExitUsage, about + e.what());
  }
}

}  // namespace kvmbench
