// StagedOutputs, temporaries and probes (issue 12, defects 5 and 12): a set of files is
// published together or not at all, nothing is ever opened through a name someone else
// placed, and remove_unpublished_outputs() leaves nothing unpublished behind.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/expect_error.hpp"
#include "terrane/io.hpp"

namespace terrane {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    names.push_back(e.path().filename().string() + (e.is_directory() ? "/" : ""));
  }
  std::sort(names.begin(), names.end());
  return names;
}

class StagedOutputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("terrane_staged_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(StagedOutputsTest, UnpublishedSetLeavesTheDirectoryAsItWas) {
  write_text(dir_ / "a.png", "old png");
  write_text(dir_ / "a.json", "old sidecar");
  {
    StagedOutputs staged(dir_);
    EXPECT_EQ(staged.staging().parent_path(), dir_);
    EXPECT_EQ(staged.staging().filename().string().rfind(".terrane-staging-", 0), 0U);
    EXPECT_EQ(fs::status(staged.staging()).permissions() & fs::perms::all, fs::perms::owner_all);
    write_file_atomic(staged.staging() / "a.png", std::as_bytes(std::span("new png", 7)));
    write_file_atomic(staged.staging() / "a.exr", std::as_bytes(std::span("new exr", 7)));
  }  // not published: a failure in the caller
  EXPECT_EQ(listing(dir_), (std::vector<std::string>{"a.json", "a.png"}));
  EXPECT_EQ(read_text(dir_ / "a.png"), "old png");
}

TEST_F(StagedOutputsTest, PublishReplacesTheSetAndRemovesTheStaging) {
  write_text(dir_ / "a.png", "old png");
  write_text(dir_ / "a.json", "old sidecar");
  write_text(dir_ / "other.txt", "not ours");
  StagedOutputs staged(dir_);
  write_text(staged.staging() / "a.png", "new png");
  write_text(staged.staging() / "a.exr", "new exr");
  write_text(staged.staging() / "a.json", "new sidecar");
  staged.publish({"a.png", "a.exr", "a.json"}, "a.json");
  EXPECT_EQ(listing(dir_), (std::vector<std::string>{"a.exr", "a.json", "a.png", "other.txt"}));
  EXPECT_EQ(read_text(dir_ / "a.png"), "new png");
  EXPECT_EQ(read_text(dir_ / "a.json"), "new sidecar");
}

TEST_F(StagedOutputsTest, BadNamesAndMissingFilesAreRefusedBeforeAnythingMoves) {
  write_text(dir_ / "a.png", "old png");
  StagedOutputs staged(dir_);
  write_text(staged.staging() / "a.png", "new png");
  write_text(staged.staging() / "a.json", "new sidecar");
  test::expect_error(
      [&] {
        staged.publish({"a.png", "../a.json"}, "../a.json");
      },
      ErrorCategory::invalid_argument, {"output name '../a.json' is not a plain file name"});
  test::expect_error(
      [&] {
        staged.publish({"a.png", "a.json", "b.png"}, "a.json");
      },
      ErrorCategory::io, {(dir_ / "b.png").string() + ": was not written"});
  test::expect_error([&] { staged.publish({"a.png"}, "a.json"); }, ErrorCategory::invalid_argument,
                     {"record 'a.json' is not among"});
  EXPECT_EQ(read_text(dir_ / "a.png"), "old png");
  fs::create_directory(dir_ / "a.json");
  test::expect_error(
      [&] {
        staged.publish({"a.png", "a.json"}, "a.json");
      },
      ErrorCategory::io,
      {(dir_ / "a.json").string() + ": exists and is not a file (a directory): move it away"});
  EXPECT_EQ(read_text(dir_ / "a.png"), "old png");
}

TEST_F(StagedOutputsTest, ProbeAndTemporariesNeverFollowASymlink) {
  const fs::path victim = dir_ / "victim.txt";
  write_text(victim, "keep me");
  // The old fixed probe name, as a symlink: a probe neither truncates nor removes its target.
  fs::create_symlink(victim, dir_ / ".terrane-write-probe");
  probe_writable(dir_, "not writable");
  EXPECT_EQ(read_text(victim), "keep me");
  EXPECT_TRUE(fs::is_symlink(dir_ / ".terrane-write-probe"));
  // A symlink at the target is replaced, not written through.
  fs::create_symlink(victim, dir_ / "out.bin");
  write_file_atomic(dir_ / "out.bin", std::as_bytes(std::span("new", 3)));
  EXPECT_EQ(read_text(victim), "keep me");
  EXPECT_FALSE(fs::is_symlink(dir_ / "out.bin"));
  EXPECT_EQ(listing(dir_),
            (std::vector<std::string>{".terrane-write-probe", "out.bin", "victim.txt"}));
}

// remove_unpublished_outputs() is one-way for its process: it runs in a child.
TEST_F(StagedOutputsTest, RemoveUnpublishedOutputsDeletesWhatIsStagedAndStopsPublication) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  write_text(dir_ / "a.png", "old png");
  EXPECT_EXIT(
      {
        StagedOutputs staged(dir_);
        write_text(staged.staging() / "a.png", "new png");
        write_text(staged.staging() / "a.json", "new sidecar");
        remove_unpublished_outputs();
        if (fs::exists(staged.staging())) std::_Exit(3);
        try {
          staged.publish({"a.png", "a.json"}, "a.json");
          std::_Exit(4);
        } catch (const Error& e) {
          if (e.category() != ErrorCategory::cancelled) std::_Exit(5);
        }
        try {
          write_file_atomic(dir_ / "b.bin", std::as_bytes(std::span("x", 1)));
          std::_Exit(6);
        } catch (const Error& e) {
          if (e.category() != ErrorCategory::cancelled) std::_Exit(7);
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EQ(listing(dir_), std::vector<std::string>{"a.png"});
  EXPECT_EQ(read_text(dir_ / "a.png"), "old png");
}

}  // namespace
}  // namespace terrane
