// A throwaway PostgreSQL server for the tests of the results database:
// Debian's postgresql package (initdb and postgres from
// /usr/lib/postgresql/<version>/bin), a cluster in a fresh temporary
// directory, listening only on a unix socket in that directory, removed
// when the test process ends (or dies: the server gets SIGQUIT then).
//
// initdb and postgres refuse to run as root, and CI runs as root: there
// the test forks, gives the child the identity of the unprivileged user
// `nobody` (setgroups, setgid, setuid: Debian 12's base system has it) and
// execs the server's programs as that user, the cluster directory owned by
// it. As any other user they run as that user.
//
// Without Debian's postgresql package the tests skip, saying so
// (missing_package_reason); scripts/bootstrap.sh installs it, so CI runs
// them. Any other reason the server cannot start fails the test with it.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <libpq-fe.h>

namespace kvmbench::test_support {

class PostgresServer {
 public:
  // The server of this test process, started at the first call. Throws
  // std::runtime_error saying why it could not start.
  static PostgresServer& shared() {
    static std::unique_ptr<PostgresServer> server(new PostgresServer());
    return *server;
  }

  // Why the server cannot be had on this machine at all (no
  // /usr/lib/postgresql/<version>/bin/initdb), or "" when it can.
  static std::string missing_package_reason() {
    try {
      server_bin_dir();
      return "";
    } catch (const std::runtime_error& e) {
      return e.what();
    }
  }

  // A URL of a new, empty database on it (one per test, so tests in one
  // process do not see each other's runs).
  std::string fresh_database_url() {
    const std::string name = "t" + std::to_string(++databases_);
    PGconn* c = PQconnectdb(url("postgres").c_str());
    std::string error;
    if (PQstatus(c) != CONNECTION_OK) {
      error = PQerrorMessage(c);
    } else {
      PGresult* r = PQexec(c, ("CREATE DATABASE " + name).c_str());
      if (PQresultStatus(r) != PGRES_COMMAND_OK) error = PQresultErrorMessage(r);
      PQclear(r);
    }
    PQfinish(c);
    if (!error.empty()) throw std::runtime_error("the test's PostgreSQL server: cannot create a database: " + error);
    return url(name);
  }

  std::string url(const std::string& database) const {
    return "postgresql:///" + database + "?host=" + dir_ + "&user=kvmbench";
  }
  const std::string& socket_dir() const { return dir_; }

  ~PostgresServer() {
    if (server_pid_ > 0) {
      ::kill(server_pid_, SIGINT);  // fast shutdown: roll back, close, exit
      for (int i = 0; i < 100 && ::waitpid(server_pid_, nullptr, WNOHANG) == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      ::kill(server_pid_, SIGKILL);
      ::waitpid(server_pid_, nullptr, 0);
    }
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

 private:
  PostgresServer() {
    const std::string bin = server_bin_dir();
    char tmpl[] = "/tmp/kvmbench-pg-XXXXXX";  // short: a unix socket path has 107 bytes at most
    if (!::mkdtemp(tmpl)) throw std::runtime_error("the test's PostgreSQL server: mkdtemp failed");
    dir_ = tmpl;
    if (::geteuid() == 0) {
      const passwd* pw = ::getpwnam("nobody");
      if (!pw)
        throw std::runtime_error("the test's PostgreSQL server: running as root, and there is no user 'nobody' to "
                                 "run initdb and postgres as (they refuse root)");
      uid_ = pw->pw_uid;
      gid_ = pw->pw_gid;
      if (::chown(dir_.c_str(), uid_, gid_) != 0)
        throw std::runtime_error("the test's PostgreSQL server: cannot give " + dir_ + " to nobody");
    }
    const int rc = run_and_wait({bin + "/initdb", "-D", dir_ + "/data", "-U", "kvmbench", "-A", "trust", "-E",
                                 "UTF8", "--locale=C", "--no-sync"},
                                dir_ + "/initdb.log");
    if (rc != 0)
      throw std::runtime_error("the test's PostgreSQL server: initdb failed (exit " + std::to_string(rc) +
                               "); its output:\n" + read_log(dir_ + "/initdb.log"));
    server_pid_ = spawn({bin + "/postgres", "-D", dir_ + "/data", "-k", dir_, "-c", "listen_addresses=", "-F", "-c",
                         "max_connections=20", "-c", "shared_buffers=16MB"},
                        dir_ + "/server.log", /*die_with_parent=*/true);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (PQping(url("postgres").c_str()) != PQPING_OK) {
      int status = 0;
      if (::waitpid(server_pid_, &status, WNOHANG) == server_pid_) {
        server_pid_ = -1;
        throw std::runtime_error("the test's PostgreSQL server exited at start; its log:\n" +
                                 read_log(dir_ + "/server.log"));
      }
      if (std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("the test's PostgreSQL server did not accept connections within 60 s; its log:\n" +
                                 read_log(dir_ + "/server.log"));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  // The newest /usr/lib/postgresql/<version>/bin with initdb in it.
  static std::string server_bin_dir() {
    std::string best;
    int best_version = -1;
    std::error_code ec;
    for (auto& e : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
      const std::string v = e.path().filename().string();
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) continue;
      if (!std::filesystem::exists(e.path() / "bin" / "initdb")) continue;
      if (std::stoi(v) > best_version) best_version = std::stoi(v), best = (e.path() / "bin").string();
    }
    if (best.empty())
      throw std::runtime_error("the test's PostgreSQL server: no /usr/lib/postgresql/<version>/bin/initdb: install "
                               "Debian's postgresql package (scripts/bootstrap.sh does)");
    return best;
  }

  // fork, drop to the server's user, exec; output to `log`.
  pid_t spawn(const std::vector<std::string>& argv, const std::string& log, bool die_with_parent) {
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("the test's PostgreSQL server: fork failed");
    if (pid == 0) {
      if (uid_ != static_cast<uid_t>(-1)) {
        if (::setgroups(0, nullptr) != 0 || ::setgid(gid_) != 0 || ::setuid(uid_) != 0) ::_exit(126);
      }
      // After the identity changes (which would clear it): the server goes
      // when the test process goes, however it ends.
      if (die_with_parent) {
        ::prctl(PR_SET_PDEATHSIG, SIGQUIT);
        if (::getppid() != parent) ::_exit(0);
      }
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) ::dup2(fd, 1), ::dup2(fd, 2);
      const int null = ::open("/dev/null", O_RDONLY);
      if (null >= 0) ::dup2(null, 0);
      ::chdir(dir_.c_str());  // the server's user may not enter the test's working directory
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    return pid;
  }

  int run_and_wait(const std::vector<std::string>& argv, const std::string& log) {
    const pid_t pid = spawn(argv, log, false);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  static std::string read_log(const std::string& path) {
    std::string out;
    if (FILE* f = std::fopen(path.c_str(), "r")) {
      char buf[4096];
      std::size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
      std::fclose(f);
    }
    return out;
  }

  std::string dir_;
  uid_t uid_ = static_cast<uid_t>(-1);
  gid_t gid_ = static_cast<gid_t>(-1);
  pid_t server_pid_ = -1;
  int databases_ = 0;
};

}  // namespace kvmbench::test_support
