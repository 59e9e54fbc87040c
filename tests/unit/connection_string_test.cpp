// PostgreSQL connection strings as messages show them (analysis/store/db/
// connection_string.h): read as libpq reads them, every secret masked
// however it was written, nothing of a string libpq cannot read.
#include "analysis/store/db/connection_string.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace kvmbench::db;

namespace {

// Every form the reliability check found shown, and more of the kind: the
// secret's two halves ("Zq7se" and "cretPW") must be in no message.
struct Form {
  std::string text;
  bool readable;
  std::string shown;  // the whole text shown, or a part of it for a string libpq cannot read
};

const std::vector<Form>& forms() {
  static const std::vector<Form> f = {
      {"postgresql://lab:Zq7secretPW@db.example/kvmbench", true, "host=db.example dbname=kvmbench user=lab password=***"},
      {"postgresql://lab:Zq7se%40cretPW@db.example/k", true, "host=db.example dbname=k user=lab password=***"},
      {"postgresql://lab@db/k?sslmode=require&password=Zq7secretPW", true,
       "host=db dbname=k user=lab password=*** sslmode=require"},
      {"postgresql://db/k?sslpassword=Zq7secretPW", true, "host=db dbname=k sslpassword=***"},
      {"host=db sslpassword=Zq7secretPW sslkey=/etc/k.pem", true, "host=db sslkey=/etc/k.pem sslpassword=***"},
      {"host=/run/pg dbname=k password = Zq7secretPW", true, "host=/run/pg dbname=k password=***"},
      {"host=db password='Zq7se cretPW' user=lab", true, "host=db user=lab password=***"},
      {"host=db password='Zq7se\\'cretPW'", true, "host=db password=***"},
      {"  dbname = k", true, "dbname=k"},
      {"host=db password=", true, "host=db password=''"},
      // libpq reads these, but splits a secret where it should not.
      {"postgresql://lab:Zq7se@cretPW@localhost:1/k", false, "an '@' in its host name"},
      {"postgresql://lab@localhost:Zq7secretPW/k", false, "a port that is not a number"},
      // libpq cannot read these.
      {"postgresql://lab:Zq7se%zzcretPW@localhost/k", false,
       "libpq cannot read it: invalid percent-encoded token: \"…\""},
      {"host=db passwrod=Zq7secretPW", false, "invalid connection option \"…\"; did you mean 'password'?"},
      {"hots=db password=Zq7secretPW", false, "invalid connection option \"…\"; did you mean 'host'?"},
      {"host=db sslpasword=Zq7secretPW", false, "did you mean 'sslpassword'?"},
      {"host=db Zq7secretPW", false, "missing \"=\" after \"…\""},
      {"host=db password='Zq7secretPW", false, "unterminated quoted string"},
      {"postgresql://lab:Zq7secretPW@[::1/k", false, "a PostgreSQL connection URL (not shown: libpq cannot read it"},
      {"postgresql://db/k?password", false, "a PostgreSQL connection URL (not shown: libpq cannot read it"},
      {"postgresql://db/k?password=a=Zq7secretPW", false, "extra key/value separator \"=\""},
      {"postgresql://db/k?passwrod=Zq7secretPW", false,
       "invalid URI query parameter: \"…\"; did you mean 'password'?"},
  };
  return f;
}

}  // namespace

TEST(ConnectionString, SecretsAreMaskedAsLibpqReadsThem) {
  for (const auto& f : forms()) {
    SCOPED_TRACE(f.text);
    const ConnectionString c = read_connection_string(f.text);
    EXPECT_EQ(c.readable, f.readable) << c.shown;
    if (f.readable) {
      EXPECT_EQ(c.shown, f.shown);
    } else {
      EXPECT_NE(c.shown.find(f.shown), std::string::npos) << c.shown;
      EXPECT_TRUE(c.secrets.empty());
    }
    EXPECT_EQ(c.shown.find("Zq7se"), std::string::npos) << c.shown;
    EXPECT_EQ(c.shown.find("cretPW"), std::string::npos) << c.shown;
    EXPECT_EQ(shown_connection_string(f.text), c.shown);
  }
}

// libpq's messages about a connection quote what it read: a secret is
// taken out of them wherever it stands.
TEST(ConnectionString, SecretsAreTakenOutOfLibpqsMessages) {
  const ConnectionString c = read_connection_string("host=db password=Zq7se%cretPW sslpassword=k3y");
  ASSERT_TRUE(c.readable);
  EXPECT_EQ(c.secrets, (std::vector<std::string>{"Zq7se%cretPW", "k3y"}));
  EXPECT_EQ(without_secrets("server said \"Zq7se%cretPW\" twice: Zq7se%cretPW, and k3y", c),
            "server said \"***\" twice: ***, and ***");
  EXPECT_EQ(without_secrets("nothing to hide", c), "nothing to hide");
}

// What is written as libpq's key=value words is a connection string,
// read by libpq or refused; a path is not.
TEST(ConnectionString, WhatIsWrittenAsKeyValueWords) {
  for (const char* text : {"host=db1 dbname=k", "  dbname = k", "hots=db password=x", "hostname=x.db", "x=1"})
    EXPECT_TRUE(looks_like_keyword_string(text)) << text;
  for (const char* text : {"results/a=b.db", "/srv/lab.db", "lab.db", "=x", "1x=2", "", "   "})
    EXPECT_FALSE(looks_like_keyword_string(text)) << text;
}
