// HTTP for talking to a lab engine's server (LAVA's REST API): one request,
// its status and body, through libcurl. Nothing here knows LAVA.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

namespace kvmbench {

struct HttpResponse {
  long status = 0;  // the HTTP status (200, 401, ...)
  std::string body;
};

// The server could not be reached or did not answer (DNS, refused
// connection, TLS, a timeout): no HTTP status at all. The message names the
// URL and libcurl's reason.
struct HttpUnreachable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct HttpRequest {
  std::string method = "GET";  // GET or POST
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;                  // POST only
  std::chrono::seconds timeout{60};
};

// Sends `request` and returns what came back, whatever its status: the
// caller decides what a 401 or a 404 means. Throws HttpUnreachable when no
// answer came. Redirects are followed (a server behind a proxy may move
// /api/ to https).
HttpResponse send_http(const HttpRequest& request);

// `text` with every character that is not unreserved in a URL (RFC 3986)
// percent-encoded: for query values.
std::string url_encoded(const std::string& text);

}  // namespace kvmbench
