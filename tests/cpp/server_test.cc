// Integration tests against a real MariaDB started by ManagedServer.
#include "server/managed_server.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "exec/connection.h"
#include "server/datadir_template.h"

namespace gauntlet {
namespace {

namespace fs = std::filesystem;

std::string TempDir() {
  char tmpl[] = "/tmp/gauntlet-test-XXXXXX";
  return mkdtemp(tmpl);
}

ServerOptions Options(const std::string& dir) {
  ServerOptions o;
  o.dir = dir + "/server";
  o.core_file = false;
  return o;
}

TEST(ManagedServer, StartsRunsStatementsAndStops) {
  const std::string dir = TempDir();
  ManagedServer server(Options(dir));
  server.Start();
  EXPECT_TRUE(server.Alive());
  Outcome error;
  auto c = Connection::Open(server.connection(), &error);
  ASSERT_TRUE(c) << error.message;
  ResultSet rs;
  Outcome o = c->Execute("SELECT 1 AS one, NULL AS n, 'x' AS s", &rs);
  ASSERT_TRUE(o.ok()) << o.message;
  ASSERT_EQ(rs.rows.size(), 1u);
  EXPECT_EQ(rs.columns[0].name, "one");
  EXPECT_EQ(rs.columns[0].type, "INT");
  EXPECT_EQ(*rs.rows[0][0], "1");
  EXPECT_FALSE(rs.rows[0][1].has_value());
  o = c->Execute("SELEC 1");
  EXPECT_EQ(o.kind, OutcomeKind::kSyntax);
  EXPECT_EQ(o.error_code, 1064u);
  EXPECT_EQ(o.sqlstate, "42000");
  o = c->Execute("SELECT * FROM no_such_table");
  EXPECT_EQ(o.kind, OutcomeKind::kSemantic);
  c.reset();
  // No TCP unless asked.
  EXPECT_EQ(server.port(), 0u);
  server.Stop();
  EXPECT_FALSE(server.Alive());
  EXPECT_EQ(server.exit_signal(), 0);
  // Restart keeps the datadir.
  server.Start();
  c = Connection::Open(server.connection(), &error);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->Execute("CREATE TABLE test.kept (i INT)").ok());
  c.reset();
  server.Restart();
  c = Connection::Open(server.connection(), &error);
  EXPECT_TRUE(c->Execute("SELECT * FROM test.kept").ok());
  c.reset();
  server.Stop();
  fs::remove_all(dir);
}

TEST(ManagedServer, TemplateCopyMakesAFreshServerReadyFast) {
  const std::string dir = TempDir();
  ManagedServer first(Options(dir + "/a"));
  first.Start();  // bootstraps the template if this machine has none yet
  first.Stop();
  ManagedServer second(Options(dir + "/b"));
  second.Start();
  EXPECT_LT(second.ready_seconds(), 5.0);
  EXPECT_TRUE(fs::exists(second.datadir() + "/mysql"));
  second.Stop();
  fs::remove_all(dir);
}

TEST(DatadirTemplate, ACopyThatSignalsInterruptGoesOn) {
  // A handler without SA_RESTART, as Python installs for Ctrl-C: signals arriving while the copy's
  // system calls run make some of them fail with EINTR (a plain fs::copy of this tree failed in
  // 5 of 5 tries here).
  struct sigaction action {}, previous {};
  action.sa_handler = [](int) {};
  sigemptyset(&action.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR1, &action, &previous), 0);
  const fs::path root = fs::temp_directory_path() / ("gauntlet_eintr_" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "from" / "db");
  for (int f = 0; f < 3000; ++f) std::ofstream(root / "from" / "db" / std::to_string(f)) << std::string(20000, 'x');
  const pthread_t copier = pthread_self();
  std::atomic<bool> done{false};
  std::thread signaller([&] {
    while (!done) {
      pthread_kill(copier, SIGUSR1);
      std::this_thread::sleep_for(std::chrono::microseconds(5));
    }
  });
  for (int i = 0; i < 3; ++i) {
    const fs::path target = root / ("to" + std::to_string(i));
    EXPECT_NO_THROW(CopyDatadir((root / "from").string(), target.string()));
    EXPECT_EQ(std::distance(fs::directory_iterator(target / "db"), fs::directory_iterator()), 3000);
    EXPECT_EQ(fs::file_size(target / "db" / "2999"), 20000u);
  }
  done = true;
  signaller.join();
  sigaction(SIGUSR1, &previous, nullptr);
  fs::remove_all(root);
}

TEST(ManagedServer, TcpOnLoopbackWhenAsked) {
  const std::string dir = TempDir();
  ServerOptions o = Options(dir);
  o.tcp = true;
  ManagedServer server(o);
  server.Start();
  ASSERT_GT(server.port(), 0u);
  ConnectionParams p;
  p.host = "127.0.0.1";
  p.port = server.port();
  Outcome error;
  EXPECT_TRUE(Connection::Open(p, &error)) << error.message;
  server.Stop();
  fs::remove_all(dir);
}

TEST(ManagedServer, BadOptionIsAClearErrorWithTheLogLines) {
  const std::string dir = TempDir();
  ServerOptions o = Options(dir);
  o.mysqld.push_back("no_such_option=1");
  ManagedServer server(o);
  try {
    server.Start();
    FAIL() << "the server should refuse to start";
  } catch (const ServerError& e) {
    ASSERT_FALSE(e.log_errors().empty());
    EXPECT_NE(std::string(e.what()).find("no_such_option"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(server.Alive());
  fs::remove_all(dir);
}

TEST(ManagedServer, SegfaultGivesACrashReportWithASignature) {
  const std::string dir = TempDir();
  ManagedServer server(Options(dir));
  server.Start();
  server.Kill(SIGSEGV);
  for (int i = 0; i < 500 && server.Alive(); ++i) usleep(10000);
  ASSERT_FALSE(server.Alive());
  EXPECT_EQ(server.exit_signal(), SIGSEGV);
  const CrashReport r = server.Crash();
  EXPECT_EQ(r.signal, 11);
  ASSERT_FALSE(r.frames.empty()) << r.log_excerpt;
  EXPECT_EQ(r.signature.rfind("signal 11: ", 0), 0u) << r.signature;
  EXPECT_EQ(r.signature.find("handle_fatal_signal"), std::string::npos);
  EXPECT_NE(r.log_excerpt.find("got signal 11"), std::string::npos);
  fs::remove_all(dir);
}

TEST(CrashReport, AssertionsAndHandlerFramesAreRecognised) {
  const CrashReport r = ParseCrashReport(
      "2024-01-01 0 [Note] starting\n"
      "mariadbd: /src/sql/item.cc:42: void f(): Assertion `x == y' failed.\n"
      "240101 [ERROR] /usr/sbin/mariadbd got signal 6 ;\n"
      "/usr/sbin/mariadbd(my_print_stacktrace+0x2e)[0x1]\n"
      "/usr/sbin/mariadbd(handle_fatal_signal+0x269)[0x2]\n"
      "libc_sigaction.c:0(__restore_rt)[0x3]\n"
      "pthread_kill.c:44(__pthread_kill_implementation)[0x4]\n"
      "/lib/libc.so.6(abort+0xd3)[0x5]\n"
      "/usr/sbin/mariadbd(_ZN4Item3valEv+0x10)[0x6]\n"
      "Writing a core file...\n");
  EXPECT_EQ(r.signal, 6);
  EXPECT_EQ(r.assertion, "x == y");
  EXPECT_EQ(r.signature, "assertion: x == y");
  ASSERT_EQ(r.frames.size(), 1u);
  EXPECT_EQ(r.frames[0], "Item::val()");
}

TEST(CrashReport, TheCrashingQueryAndSessionAreRead) {
  const std::string head = "240101 [ERROR] /usr/sbin/mariadbd got signal 11 ;\n"
                           "udf/crash_if.cc:24(crash_if)[0x7fd547d5f152]\n\n"
                           "Connection ID (thread ID): 6\nStatus: NOT_KILLED\n";
  CrashReport r = ParseCrashReport(head + "Query (0x77d4f8010cc0): SELECT a\nFROM t\n\nOptimizer switch: x\n");
  EXPECT_EQ(r.query, "SELECT a\nFROM t");
  EXPECT_EQ(r.connection_id, 6u);
  r = ParseCrashReport(head + "Query (0x0): (null)\n\n");
  EXPECT_EQ(r.query, "");
}

// A stripped server's core, as gdb shows it: the crashing thread's frames
// carry parameter types (as the error log's demangled ones do) and the
// unknown and library frames around them do not hide them.
TEST(CrashReport, GdbFramesOfTheCrashingThread) {
  const std::string gdb =
      "[Current thread is 1 (Thread 0x7efe140dc6c0 (LWP 32573))]\n\n"
      "Thread 2 (Thread 0x7efe17694880 (LWP 32553)):\n"
      "#0  0x00007efe16d1a26f in __GI___poll (fds=0x55, nfds=2, timeout=-1) at poll.c:29\n"
      "#1  0x0000557315a2a94f in handle_connections_sockets() ()\n\n"
      "Thread 1 (Thread 0x7efe140dc6c0 (LWP 32573)):\n"
      "#0  0x0000557315c9700f in Item_func_json_extract::read_json(String*, json_value_types*, char**, int*) ()\n"
      "#1  0x0000557315c9a4f0 in Arg_comparator::compare_e_json_str_basic(Item*, Item*) ()\n"
      "#2  0x0000557315b5cdc7 in ?? ()\n"
      "#3  0x0000557315d9fb2b in Item_func_equal::val_bool() const ()\n"
      "#4  0x00007efe16ca71f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442\n\n"
      "Thread 3 (Thread 0x1 (LWP 1)):\n#0  0x1 in other ()\n";
  EXPECT_EQ(GdbCrashFrames(gdb), (std::vector<std::string>{
      "Item_func_json_extract::read_json(String*, json_value_types*, char**, int*)",
      "Arg_comparator::compare_e_json_str_basic(Item*, Item*)", "Item_func_equal::val_bool() const",
      "start_thread"}));
}

}  // namespace
}  // namespace gauntlet
